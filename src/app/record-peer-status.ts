import type { Channel } from '../domain/account.ts';
import type { MessageStatus } from '../domain/message-status.ts';
import { findMessageByProviderRef, recordEvent } from '../store/messages.ts';
import { batchOperationsOf, type ReceiptBatches, type ReceiptEvent, type ReceiptMessage } from '../store/engine.ts';
import type { AppDeps } from './deps.ts';

/** What a peer reported later about a message it took: an SMPP receipt, a WhatsApp status. */
export interface PeerStatusReport {
  readonly channel: Channel;
  readonly providerRef: string;
  readonly status: Extract<MessageStatus, 'sent' | 'delivered' | 'failed' | 'bounced'> | 'read';
  readonly peer: string;
  readonly response: string;
  /** When the peer says it happened, if it says. */
  readonly at?: number;
}

export type PeerStatusResult = 'recorded' | 'unknown-message';

export type PeerStatusDeps = Pick<AppDeps, 'db' | 'commit' | 'clock' | 'newId' | 'wakeWebhooks' | 'metrics' | 'receiptBatcher'>;

/**
 * Applies a peer's report to the message it names. `read` (WhatsApp) is recorded as
 * an event on a delivered message without a status of its own. A report for a
 * message this installation does not know is answered, not failed: peers resend
 * what is not acknowledged, and an unknown id will not become known.
 */
export async function recordPeerStatus(deps: PeerStatusDeps, report: PeerStatusReport): Promise<PeerStatusResult> {
  // PostgreSQL: the reports that arrive together are looked up and recorded together (ReceiptBatcher below).
  const batches = batchOperationsOf(deps.db).receiptBatches;
  if (batches !== undefined && deps.receiptBatcher !== undefined) return deps.receiptBatcher.record(deps, batches, report);
  const message = await findMessageByProviderRef(deps.db, report.channel, report.providerRef);
  if (!message) return 'unknown-message';
  const at = report.at ?? deps.clock();
  const data = { peer: report.peer, response: report.response };
  // Receipts come in bursts (an SMSC flushing its queue): they share commits like sends do.
  await deps.commit.run(async (tx) => {
    await recordEvent(tx, { messageId: message.id, ...eventOf(report), eventId: deps.newId(), at, data });
  });
  deps.wakeWebhooks?.();
  return 'recorded';
}

/** The status a report moves its message to, and its event's type when that is not the status. */
function eventOf(report: PeerStatusReport): { status: MessageStatus; type?: string } {
  return report.status === 'read' ? { status: 'delivered', type: 'read' } : { status: report.status };
}

/** Most reports looked up and recorded in one batch (one SELECT, then one statement that is its own transaction). */
const MAX_RECEIPTS_PER_BATCH = 256;
/** Batches under way at once: while one waits on its statement, the reports that came meanwhile are looked up. */
const RECEIPT_LANES = 2;

interface WaitingReport {
  readonly report: PeerStatusReport;
  readonly resolve: (result: PeerStatusResult) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * PostgreSQL: the reports that arrive while a batch is under way wait, then go together
 * (an SMSC flushes receipts in bursts): their messages found in one SELECT, their events
 * recorded in one statement that is its own transaction (store/postgres/peer-receipt.ts), the
 * dispatcher woken once. A lone report goes at once (the next turn of the event loop), as before.
 * Each message at most once per batch: a second report on the same message (sent, then
 * delivered) waits for the next batch, so reports on one message apply in their order.
 * A batch that fails is tried again report by report, so one bad report fails alone.
 * One per store, made with the service's deps (service.ts) and shared by every copy of them.
 */
export class ReceiptBatcher {
  readonly #queue: WaitingReport[] = [];
  #running = 0;
  // The first caller's: every caller of one store's batcher has the same store, committer and counters.
  #deps: PeerStatusDeps | undefined;
  #batches: ReceiptBatches | undefined;

  record(deps: PeerStatusDeps, batches: ReceiptBatches, report: PeerStatusReport): Promise<PeerStatusResult> {
    this.#deps ??= deps;
    this.#batches ??= batches;
    return new Promise((resolve, reject) => {
      this.#queue.push({ report, resolve, reject });
      if (this.#running < RECEIPT_LANES) {
        this.#running += 1;
        setImmediate(() => void this.#lane());
      }
    });
  }

  async #lane(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, MAX_RECEIPTS_PER_BATCH);
        try {
          await this.#recordBatch(batch);
        } catch {
          for (const waiting of batch) await this.#recordBatch([waiting]).catch(waiting.reject);
        }
      }
    } finally {
      this.#running -= 1;
    }
  }

  /** Looks the batch up, records what it found, answers each report; reports on a message already in the batch go back to the queue. */
  async #recordBatch(batch: readonly WaitingReport[]): Promise<void> {
    const deps = this.#deps;
    const batches = this.#batches;
    if (deps === undefined || batches === undefined) throw new Error('unreachable: a batch before any report');
    const found = new Map<WaitingReport, ReceiptMessage>();
    for (const channel of new Set(batch.map((w) => w.report.channel))) {
      const ofChannel = batch.filter((w) => w.report.channel === channel);
      const messages = await batches.find(deps.db, channel, ofChannel.map((w) => w.report.providerRef));
      for (const waiting of ofChannel) {
        const message = messages.get(waiting.report.providerRef);
        if (message !== undefined) found.set(waiting, message);
      }
    }
    const taken = new Set<string>();
    const now: { waiting: WaitingReport; message: ReceiptMessage; event: ReceiptEvent }[] = [];
    const later: WaitingReport[] = [];
    for (const waiting of batch) {
      const message = found.get(waiting);
      if (message === undefined) continue;
      if (taken.has(message.id)) {
        later.push(waiting);
        continue;
      }
      taken.add(message.id);
      const { report } = waiting;
      const event: ReceiptEvent = { ...eventOf(report), eventId: deps.newId(), at: report.at ?? deps.clock(), data: { peer: report.peer, response: report.response } };
      now.push({ waiting, message, event });
    }
    // One statement, its own transaction (no BEGIN and COMMIT round trips); the ordinary way if a webhook setting changed meanwhile.
    const recorded = await batches.record(deps.db, now);
    if (recorded === undefined) {
      await deps.commit.run(async (tx) => {
        for (const { message, event } of now) await recordEvent(tx, { messageId: message.id, ...event });
      });
    } else deps.metrics.eventsRecorded(recorded);
    // Answered only once nothing of the batch can fail any more.
    this.#queue.unshift(...later);
    if (now.length > 0) deps.wakeWebhooks?.();
    for (const waiting of batch) if (!found.has(waiting)) waiting.resolve('unknown-message');
    for (const { waiting } of now) waiting.resolve('recorded');
  }
}
