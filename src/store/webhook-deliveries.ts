import type { Channel } from '../domain/account.ts';
import { eventPayload, filterAccepts, publicEventType, type EventFamily, type EventType } from '../domain/event-catalogue.ts';
import type { DeliveryStatus } from '../domain/webhook-delivery-query.ts';
import type { Db, Executor, Tx } from './database.ts';
import type { DialectCapabilities } from './dialect.ts';
import type { Committer } from './group-commit.ts';
import { execute, queryRows, statement } from './prepared-statement.ts';

/** A message event just recorded, as recordEvent hands it over. */
export interface RecordedEvent {
  readonly id: string;
  readonly messageId: string;
  readonly type: string;
  readonly at: number;
  readonly data: Readonly<Record<string, unknown>>;
}

/**
 * The webhook outbox's producer: called in the transaction that records a message
 * event, so an event and its delivery row commit together or not at all. Writes a
 * `pending` row, due at once, when the event has a public type, the account has a
 * webhook URL and its filter lets the type through. The body is fixed now, so every
 * retry posts the same bytes under the same `webhook-id` (the event's id).
 */
export async function enqueueWebhookDelivery(db: Executor, event: RecordedEvent): Promise<boolean> {
  const [row] = await queryRows<EventSubject>(db, EVENT_SUBJECT, [event.messageId]);
  if (!row || row.webhook_url === null) return false;
  const channel = row.channel as Channel;
  const type = publicEventType(channel, event.type);
  if (type === undefined) return false;
  const filter = row.webhook_events === null ? null : (JSON.parse(row.webhook_events) as EventType[]);
  if (!filterAccepts(filter, type)) return false;

  const certified = row.certified === 1;
  const payload = eventPayload(type, event.at, {
    msgid: event.messageId,
    accountId: row.account_id,
    channel,
    recipient: row.recipient,
    family: row.family as EventFamily,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, unknown>),
    certified,
    ...(channel === 'email' && !certified ? { tracking: { opens: row.track_opens === 1, clicks: row.track_clicks === 1 } } : {}),
    ...(row.campaign_id === null ? {} : { campaign: { id: row.campaign_id, name: row.campaign_name ?? '', listIds: JSON.parse(row.campaign_lists ?? '[]') as string[] } }),
  }, event.data);
  await insertDelivery(db, { id: event.id, accountId: row.account_id, messageId: event.messageId, type, payload: JSON.stringify(payload), at: event.at });
  return true;
}

interface EventSubject {
  account_id: string; channel: string; recipient: string; webhook_url: string | null; webhook_events: string | null;
  family: string; metadata: string | null; certified: number; track_opens: number; track_clicks: number;
  campaign_id: string | null; campaign_name: string | null; campaign_lists: string | null;
}

const EVENT_SUBJECT = statement(`
  select m.account_id, m.channel, m.recipient, a.webhook_url, a.webhook_events,
         s.family, s.metadata, s.certified, s.track_opens, s.track_clicks,
         m.campaign_id, c.name as campaign_name, c.lists as campaign_lists
  from messages m
  join accounts a on a.id = m.account_id
  join sends s on s.id = m.send_id
  left join campaigns c on c.id = m.campaign_id
  where m.id = $1`);

/**
 * A pending delivery of something that happened at `at`, due at once: next_attempt_at
 * is 0, not `at`, because `at` may be a peer's clock running ahead of ours (a WhatsApp
 * status time) and the first attempt must not wait for it. Test events have no message.
 */
export async function insertDelivery(
  db: Executor,
  delivery: { id: string; accountId: string; messageId: string | null; type: string; payload: string; at: number },
): Promise<void> {
  await execute(db, INSERT_DELIVERY, [
    delivery.id, delivery.accountId, delivery.messageId, delivery.type, delivery.payload, delivery.at,
  ]);
}

const INSERT_DELIVERY = statement(`
  insert into webhook_deliveries (id, account_id, message_id, type, payload, status, attempts, next_attempt_at,
                                  lease_owner, lease_expires_at, last_status_code, last_error, created_at, updated_at)
  values ($1, $2, $3, $4, $5, 'pending', 0, 0, null, null, null, null, $6, $6)`);

// ---- the dispatcher's side ----


export interface ClaimedDelivery {
  readonly id: string;
  readonly accountId: string;
  readonly messageId: string | null;
  readonly type: string;
  readonly payload: string;
  /** Attempts made before this one. */
  readonly attempts: number;
}

/**
 * Leases up to `limit` due deliveries to `owner` until `now + leaseMs`, in one transaction:
 *
 *   SELECT d.id FROM webhook_deliveries d
 *   WHERE d.status = 'pending' AND d.next_attempt_at <= $now
 *     AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= $now)
 *     AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e
 *                     WHERE e.message_id = d.message_id AND e.status = 'pending' AND e.id < d.id)
 *   ORDER BY d.next_attempt_at, d.id LIMIT $limit [FOR UPDATE SKIP LOCKED];
 *   UPDATE webhook_deliveries SET lease_owner = $owner, lease_expires_at = $now + $lease
 *   WHERE id IN (…those ids…) RETURNING …
 *
 * Head of line per message: a delivery is due only when no earlier (by id: event ids
 * are time-ordered) delivery of the same message is still pending — waiting for its
 * next slot or in flight — so a message's events reach the receiver in the order they
 * happened. Test events (no message) never wait on anything. Two statements rather
 * than `UPDATE … WHERE id IN (SELECT …)`: PostgreSQL plans that form as a scan of the
 * whole table, and the ids in hand go straight through the primary key. SQLite's write
 * lock (BEGIN IMMEDIATE) and PostgreSQL's row locks keep the pair atomic: call it in a
 * transaction (recordAndClaim does).
 */
export async function claimDueDeliveries(
  tx: Tx,
  capabilities: DialectCapabilities,
  lease: { owner: string; now: number; leaseMs: number; limit: number },
): Promise<ClaimedDelivery[]> {
  const { owner, now, leaseMs, limit } = lease;
  const due = await tx
    .selectFrom('webhook_deliveries as d')
    .select('d.id')
    .where('d.status', '=', 'pending')
    .where('d.next_attempt_at', '<=', now)
    .where((w) => w.or([w('d.lease_expires_at', 'is', null), w('d.lease_expires_at', '<=', now)]))
    .where(({ not, exists, selectFrom }) =>
      not(exists(
        selectFrom('webhook_deliveries as e')
          .select('e.id')
          .whereRef('e.message_id', '=', 'd.message_id')
          .where('e.status', '=', 'pending')
          .whereRef('e.id', '<', 'd.id'),
      )))
    .orderBy('d.next_attempt_at')
    .orderBy('d.id')
    .limit(limit)
    .$if(capabilities.skipLocked, (q) => q.forUpdate().skipLocked())
    .execute();
  if (due.length === 0) return [];
  const rows = await tx
    .updateTable('webhook_deliveries')
    .set({ lease_owner: owner, lease_expires_at: now + leaseMs })
    .where('id', 'in', due.map((d) => d.id))
    .returning(['id', 'account_id', 'message_id', 'type', 'payload', 'attempts'])
    .execute();
  return rows
    .map((row) => ({
      id: row.id, accountId: row.account_id, messageId: row.message_id, type: row.type, payload: row.payload, attempts: Number(row.attempts),
    }))
    // RETURNING has no order of its own; deliveries start in id order.
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** One finished attempt (or a delivery that could not be attempted), with what follows from it. */
export interface AttemptRecord {
  readonly deliveryId: string;
  /** This attempt's number (attempts made before it + 1); unchanged when nothing was posted. */
  readonly attempts: number;
  readonly at: number;
  /** null when nothing was posted (no webhook URL): no attempt row, the delivery just moves on. */
  readonly url: string | null;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly durationMs: number;
  /** succeeded, failed (schedule spent), or pending again at nextAttemptAt. */
  readonly next: { readonly status: 'succeeded' | 'failed' } | { readonly status: 'pending'; readonly nextAttemptAt: number };
}

/**
 * Records finished attempts in one transaction (the dispatcher batches them, so a busy
 * receiver costs one commit per batch, not per event); attempts with the same outcome
 * move in one statement. Each delivery moves only while `owner` still holds its lease;
 * an attempt whose lease was lost (it expired and another dispatcher took over) is not
 * recorded. Returns the ids that were recorded.
 */
export async function recordAttempts(
  tx: Tx,
  owner: string,
  records: readonly AttemptRecord[],
  write: { readonly now: number; readonly newId: () => string },
): Promise<Set<string>> {
  if (records.length === 0) return new Set();
  // Same outcome, same columns: 2xx answers of a batch are usually one group.
  const groups = new Map<string, AttemptRecord[]>();
  for (const record of records) {
    const key = JSON.stringify([record.next, record.attempts, record.statusCode, record.error]);
    const group = groups.get(key);
    if (group) group.push(record);
    else groups.set(key, [record]);
  }
  const recorded = new Set<string>();
  for (const group of groups.values()) {
    const [first] = group as [AttemptRecord, ...AttemptRecord[]];
    for (const part of inChunks(group)) {
      const rows = await tx
        .updateTable('webhook_deliveries')
        .set({
          status: first.next.status,
          attempts: first.attempts,
          ...(first.next.status === 'pending' ? { next_attempt_at: first.next.nextAttemptAt } : {}),
          last_status_code: first.statusCode,
          last_error: first.error,
          lease_owner: null,
          lease_expires_at: null,
          updated_at: write.now,
        })
        .where('id', 'in', part.map((r) => r.deliveryId))
        .where('lease_owner', '=', owner)
        .returning('id')
        .execute();
      for (const row of rows) recorded.add(row.id);
    }
  }
  const attempts = records.filter((r) => r.url !== null && recorded.has(r.deliveryId));
  for (const part of inChunks(attempts)) {
    await tx
      .insertInto('webhook_attempts')
      .values(part.map((r) => ({
        id: write.newId(), delivery_id: r.deliveryId, at: r.at, url: r.url ?? '', status_code: r.statusCode, error: r.error, duration_ms: r.durationMs,
      })))
      .execute();
  }
  return recorded;
}

/**
 * The dispatcher's one unit of work per step: the finished attempts written, then (when
 * `claim` is given) new deliveries leased, so a step costs one durable commit at most —
 * none of its own on SQLite, where the group committer lets it share the commit of the
 * events being recorded at the same time. A claim after the writes sees them: a message
 * whose event just succeeded has its next event due.
 */
export async function recordAndClaim(
  committer: Committer,
  capabilities: DialectCapabilities,
  step: {
    readonly owner: string;
    readonly now: number;
    readonly newId: () => string;
    readonly records: readonly AttemptRecord[];
    readonly claim?: { readonly leaseMs: number; readonly limit: number };
  },
): Promise<{ recorded: Set<string>; claimed: ClaimedDelivery[] }> {
  const { owner, now, newId, records, claim } = step;
  return committer.run(async (tx) => {
    const recorded = await recordAttempts(tx, owner, records, { now, newId });
    const claimed = claim === undefined ? [] : await claimDueDeliveries(tx, capabilities, { owner, now, leaseMs: claim.leaseMs, limit: claim.limit });
    return { recorded, claimed };
  });
}

// SQLite caps bound parameters per statement (32766): 7 columns × 500 rows stays far below.
const CHUNK = 500;

function* inChunks<T>(items: readonly T[]): Generator<T[]> {
  for (let i = 0; i < items.length; i += CHUNK) yield items.slice(i, i + CHUNK);
}

/** Releases every delivery lease (see DialectCapabilities.singleServerProcess); returns how many were held. */
export async function releaseAllDeliveryLeases(db: Db): Promise<number> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: null, lease_expires_at: null })
    .where('lease_owner', 'is not', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

// ---- the delivery log, always scoped by account ----

export interface StoredDelivery {
  readonly id: string;
  readonly accountId: string;
  readonly messageId: string | null;
  readonly type: string;
  readonly payload: string;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly nextAttemptAt: number;
  readonly lastStatusCode: number | null;
  readonly lastError: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface StoredAttempt {
  readonly at: number;
  readonly url: string;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly durationMs: number;
}

type DeliveryRow = {
  id: string; account_id: string; message_id: string | null; type: string; payload: string; status: string; attempts: number;
  next_attempt_at: number; last_status_code: number | null; last_error: string | null; created_at: number; updated_at: number;
};

const DELIVERY_COLUMNS = [
  'id', 'account_id', 'message_id', 'type', 'payload', 'status', 'attempts', 'next_attempt_at', 'last_status_code', 'last_error', 'created_at', 'updated_at',
] as const;

function toStoredDelivery(row: DeliveryRow): StoredDelivery {
  return {
    id: row.id, accountId: row.account_id, messageId: row.message_id, type: row.type, payload: row.payload, status: row.status as DeliveryStatus,
    attempts: Number(row.attempts), nextAttemptAt: Number(row.next_attempt_at),
    lastStatusCode: row.last_status_code === null ? null : Number(row.last_status_code), lastError: row.last_error,
    createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
  };
}

export interface DeliveryFilter {
  readonly status?: DeliveryStatus;
  readonly messageId?: string;
  /** Keyset cursor: only deliveries with a smaller id (older). */
  readonly before?: string;
  readonly limit: number;
}

/** The account's deliveries, newest first, one page. */
export async function listDeliveries(db: Executor, accountId: string, filter: DeliveryFilter): Promise<StoredDelivery[]> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select(DELIVERY_COLUMNS)
    .where('account_id', '=', accountId)
    .$if(filter.status !== undefined, (q) => q.where('status', '=', filter.status ?? ''))
    .$if(filter.messageId !== undefined, (q) => q.where('message_id', '=', filter.messageId ?? ''))
    .$if(filter.before !== undefined, (q) => q.where('id', '<', filter.before ?? ''))
    .orderBy('id', 'desc')
    .limit(filter.limit)
    .execute();
  return rows.map(toStoredDelivery);
}

/** Scoped by account: another account's delivery id finds nothing. */
export async function findDelivery(db: Executor, accountId: string, id: string): Promise<StoredDelivery | undefined> {
  const row = await db.selectFrom('webhook_deliveries').select(DELIVERY_COLUMNS).where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return row && toStoredDelivery(row);
}

/** A delivery's attempts, oldest first. Look the delivery up by account first. */
export async function listAttempts(db: Executor, deliveryId: string): Promise<StoredAttempt[]> {
  const rows = await db
    .selectFrom('webhook_attempts')
    .select(['at', 'url', 'status_code', 'error', 'duration_ms'])
    .where('delivery_id', '=', deliveryId)
    .orderBy('at')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    at: Number(r.at), url: r.url, statusCode: r.status_code === null ? null : Number(r.status_code), error: r.error, durationMs: Number(r.duration_ms),
  }));
}

/**
 * Puts the account's delivery back to `pending`, due at `now`: one attempt more for a
 * failed one, a replay of a succeeded one, an early attempt for a waiting one. A lease
 * in force is left alone: the attempt in flight records its own outcome. False when the
 * account has no such delivery.
 */
export async function retryDelivery(db: Executor, accountId: string, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, updated_at: now })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/**
 * Puts the account's failed deliveries created at or after `since` back to `pending`,
 * due at `now`, at most `max` of them (the oldest first); returns how many.
 */
export async function retryFailedDeliveries(db: Executor, accountId: string, since: number, now: number, max: number): Promise<number> {
  const chosen = db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('account_id', '=', accountId)
    .where('status', '=', 'failed')
    .where('created_at', '>=', since)
    .orderBy('id')
    .limit(max);
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, updated_at: now })
    .where('id', 'in', chosen)
    .where('status', '=', 'failed')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
