import type { Channel } from '../domain/account.ts';
import type { MessageStatus } from '../domain/message-status.ts';
import { batchOperationsOf, type Receipt } from '../store/engine.ts';
import { findReceiptMessage, recordReceiptEvent } from '../store/receipts.ts';
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

export type PeerStatusDeps = Pick<AppDeps, 'db' | 'commit' | 'clock' | 'newId' | 'wakeWebhooks'>;

/**
 * Applies a peer's report to the message it names. `read` (WhatsApp) is recorded as
 * an event on a delivered message without a status of its own. A report for a
 * message this installation does not know is answered, not failed: peers resend
 * what is not acknowledged, and an unknown id will not become known.
 * Receipts come in bursts (an SMSC flushing its queue): each is a write of the group
 * committer, which groups them — on PostgreSQL the reports that arrive together are
 * looked up and recorded in two statements outside a transaction (store/postgres/peer-receipt.ts),
 * on SQLite each is a unit of work sharing the commits of the moment.
 */
export async function recordPeerStatus(deps: PeerStatusDeps, report: PeerStatusReport): Promise<PeerStatusResult> {
  const event = { ...eventOf(report), eventId: deps.newId(), at: report.at ?? deps.clock(), data: { peer: report.peer, response: report.response } };
  const receipt: Receipt = { channel: report.channel, providerRef: report.providerRef, event };
  const together = batchOperationsOf(deps.db).receipts;
  if (together !== undefined && deps.commit.writeTogether !== undefined) {
    // The dispatcher woken once per batch, not once per report.
    return (await deps.commit.writeTogether(together, receipt, deps.wakeWebhooks)) ? 'recorded' : 'unknown-message';
  }
  if (!(await recordAlone(deps, receipt))) return 'unknown-message';
  deps.wakeWebhooks?.();
  return 'recorded';
}

/** The message looked up before the unit of work (so the batch it joins is not held by the look-up), its event recorded in it. */
async function recordAlone(deps: PeerStatusDeps, receipt: Receipt): Promise<boolean> {
  const message = await findReceiptMessage(deps.db, receipt);
  if (message === undefined) return false;
  await deps.commit.run((tx) => recordReceiptEvent(tx, message, receipt));
  return true;
}

/** The status a report moves its message to, and its event's type when that is not the status. */
function eventOf(report: PeerStatusReport): { status: MessageStatus; type?: string } {
  return report.status === 'read' ? { status: 'delivered', type: 'read' } : { status: report.status };
}
