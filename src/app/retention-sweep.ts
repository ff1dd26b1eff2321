import type { Logger } from 'pino';
import type { Db } from '../store/database.ts';
import type { Committer } from '../store/group-commit.ts';
import { eventsOfSends, messageCounts, oldInbound, oldSends, purgeInboundContent, purgeSendLeftovers, replaceEventData, replaceSendPayload, sendsStillQueued, type OldSend, type SendPosition } from '../store/retention.ts';
import { getSetting, putSetting } from '../store/settings.ts';

// HERALD_RETENTION_DAYS (README "Retention"): what a message carries of its recipient's
// content — the body, the captured MIME, the details of its events, its finished webhook
// deliveries — is purged once its send is older than the retention period. What counts
// or proves stays: the message rows and their status, each event's type and time (so the
// usage chart, campaign statistics and engagement segments keep their counts), the
// ledger, suppressions and certificates (with the MIME pieces their .eml is laid out
// over). The sweep walks sends oldest first in small batches, one transaction each, from
// where the last batch stopped (a settings row), so it never holds the store for long.

const DAY_MS = 24 * 3600 * 1000;
/** Where the sweep stopped: the last purged send's (created_at, id), as JSON. */
const POSITION_SETTING = 'retention_position';
/** The same for inbound messages (what people sent): the last one purged. */
const INBOUND_POSITION_SETTING = 'retention_inbound_position';
/** Event fields that the statistics read (campaign-stats.ts, segments.ts): kept; every other detail goes. */
const KEPT_EVENT_FIELDS = ['url', 'machine', 'bounce_type'] as const;

export interface RetentionOptions {
  /** HERALD_RETENTION_DAYS; 0 keeps everything (no sweep). */
  readonly days: number;
  /** Most sends per batch (one transaction). */
  readonly batchSize: number;
  /** Most messages per batch (a send to many recipients counts each): at least one send is taken. */
  readonly batchMessages: number;
  /** How often a sweep starts (it runs batches until nothing is left that is old enough). */
  readonly intervalMs: number;
}

export const DEFAULT_RETENTION_OPTIONS: Omit<RetentionOptions, 'days'> = { batchSize: 200, batchMessages: 2000, intervalMs: 10 * 60_000 };

export interface RetentionDeps {
  readonly db: Db;
  readonly commit: Committer;
  readonly clock: () => number;
  readonly logger: Logger;
}

export interface SweepCounts {
  readonly sends: number;
  /** Sends passed over because a message of theirs is still in the outbox (they keep their content). */
  readonly stillQueued: number;
  readonly captures: number;
  readonly pieces: number;
  readonly events: number;
  readonly webhookDeliveries: number;
}

const NONE: SweepCounts = { sends: 0, stillQueued: 0, captures: 0, pieces: 0, events: 0, webhookDeliveries: 0 };

/** What a purged send keeps of its payload: for an email, its sender (the unsubscribe page names it) and options; nothing of the content. */
export function purgedPayload(channel: string, payload: string): string {
  if (channel !== 'email') return JSON.stringify({ purged: true });
  const email = JSON.parse(payload) as Record<string, unknown>;
  return JSON.stringify({
    from: email['from'], replyTo: email['replyTo'], subject: '', html: null, text: null, to: [], cc: [], attachments: [],
    ...(email['tracking'] === undefined ? {} : { tracking: email['tracking'] }),
    ...(email['certified'] === undefined ? {} : { certified: email['certified'] }),
    purged: true,
  });
}

/** A payload purgedPayload() made: the send's content is gone. */
export function isPurgedPayload(payload: unknown): boolean {
  return typeof payload === 'object' && payload !== null && (payload as { purged?: unknown }).purged === true;
}

/** What an event keeps of its data: the fields statistics read. */
export function purgedEventData(data: string): string {
  const fields = JSON.parse(data) as Record<string, unknown>;
  return JSON.stringify(Object.fromEntries(KEPT_EVENT_FIELDS.filter((key) => fields[key] !== undefined).map((key) => [key, fields[key]])));
}

/**
 * One batch: the next `batchSize` sends older than the retention period lose their
 * content, in one transaction with the position after them. Returns what it purged;
 * `sends` 0 means nothing old enough is left.
 */
export async function purgeBatch(deps: RetentionDeps, options: Pick<RetentionOptions, 'days' | 'batchSize' | 'batchMessages'>): Promise<SweepCounts> {
  const before = deps.clock() - options.days * DAY_MS;
  const stored = await getSetting(deps.db, POSITION_SETTING);
  const after = stored === undefined ? undefined : (JSON.parse(stored) as SendPosition);
  const oldest = await oldSends(deps.db, before, after, options.batchSize);
  // A batch is one transaction that holds the writer: its size is bounded in messages too.
  const counts = await messageCounts(deps.db, oldest.map((send) => send.id));
  let messages = 0;
  const sends = oldest.filter((send, i) => (messages += counts.get(send.id) ?? 0) <= options.batchMessages || i === 0);
  const last = sends.at(-1);
  if (last === undefined) return NONE;
  return deps.commit.run(async (tx) => {
    const queued = await sendsStillQueued(tx, sends.map((send) => send.id));
    const purged: OldSend[] = sends.filter((send) => !queued.has(send.id));
    const ids = purged.map((send) => send.id);
    for (const send of purged) await replaceSendPayload(tx, send.id, purgedPayload(send.channel, send.payload));
    let events = 0;
    for (const event of await eventsOfSends(tx, ids)) {
      const data = purgedEventData(event.data);
      if (data === event.data) continue;
      await replaceEventData(tx, event.id, data);
      events += 1;
    }
    const leftovers = await purgeSendLeftovers(tx, ids);
    await putSetting(tx, POSITION_SETTING, JSON.stringify({ createdAt: last.createdAt, id: last.id } satisfies SendPosition));
    return { sends: purged.length, stillQueued: queued.size, events, ...leftovers };
  });
}

/** Runs batches until nothing old enough is left; returns the totals. */
export async function sweep(deps: RetentionDeps, options: Pick<RetentionOptions, 'days' | 'batchSize' | 'batchMessages'>, shouldStop: () => boolean = () => false): Promise<SweepCounts> {
  let total = NONE;
  while (!shouldStop()) {
    const batch = await purgeBatch(deps, options);
    if (batch.sends === 0 && batch.stillQueued === 0) break;
    total = {
      sends: total.sends + batch.sends, stillQueued: total.stillQueued + batch.stillQueued, captures: total.captures + batch.captures,
      pieces: total.pieces + batch.pieces, events: total.events + batch.events, webhookDeliveries: total.webhookDeliveries + batch.webhookDeliveries,
    };
    // Lets requests and deliveries in between batches.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return total;
}

/**
 * One batch of inbound messages older than the retention period: their text, channel
 * fields and files go, in one transaction with the position after them. Returns how
 * many messages it purged; 0 means nothing old enough is left.
 */
export async function purgeInboundBatch(deps: RetentionDeps, options: Pick<RetentionOptions, 'days' | 'batchSize'>): Promise<{ messages: number; attachments: number }> {
  const before = deps.clock() - options.days * DAY_MS;
  const stored = await getSetting(deps.db, INBOUND_POSITION_SETTING);
  const oldest = await oldInbound(deps.db, before, stored === undefined ? undefined : (JSON.parse(stored) as SendPosition), options.batchSize);
  const last = oldest.at(-1);
  if (last === undefined) return { messages: 0, attachments: 0 };
  return deps.commit.run(async (tx) => {
    const { attachments } = await purgeInboundContent(tx, oldest.map((message) => message.id));
    await putSetting(tx, INBOUND_POSITION_SETTING, JSON.stringify(last));
    return { messages: oldest.length, attachments };
  });
}

/**
 * One turn of the periodic retention job (queue/periodic-job.ts schedules it every
 * `intervalMs` in a process that delivers; several processes may sweep: a batch run twice
 * purges nothing more). Batches run until nothing old enough is left or `signal` aborts;
 * a failure is logged, and the next turn goes on from where this one stopped.
 */
export async function retentionTurn(deps: RetentionDeps, options: RetentionOptions, signal: AbortSignal): Promise<void> {
  try {
    const counts = await sweep(deps, options, () => signal.aborted);
    if (counts.sends > 0 || counts.stillQueued > 0) deps.logger.info({ retentionDays: options.days, ...counts }, 'retention: purged the content of old sends');
    const inbound = { messages: 0, attachments: 0 };
    while (!signal.aborted) {
      const batch = await purgeInboundBatch(deps, options);
      if (batch.messages === 0) break;
      inbound.messages += batch.messages;
      inbound.attachments += batch.attachments;
    }
    if (inbound.messages > 0) deps.logger.info({ retentionDays: options.days, ...inbound }, 'retention: purged the content of old inbound messages');
  } catch (error) {
    deps.logger.error({ err: error }, 'retention sweep failed; the next one goes on from where it stopped');
  }
}
