import { createHash } from 'node:crypto';
import type { Channel } from '../domain/account.ts';
import { eventPayload, filterAccepts, publicEventType, type EventFamily, type EventType } from '../domain/event-catalogue.ts';
import { isSimulatorRecipient } from '../domain/simulator.ts';
import type { DeliveryStatus } from '../domain/webhook-delivery-query.ts';
import type { Executor } from './database.ts';
import { noteRecordedEvent } from './event-tally.ts';
import { execute, queryRows, statement } from './prepared-statement.ts';
import { acceptingEndpoints } from './webhook-endpoints.ts';

/** A message event just recorded, as recordEvent hands it over. */
export interface RecordedEvent {
  readonly id: string;
  readonly messageId: string;
  readonly type: string;
  readonly at: number;
  readonly data: Readonly<Record<string, unknown>>;
}

// The webhook queue's producer and its delivery log. The dispatcher's side (claim,
// record) is webhooks/claim.ts and webhooks/record.ts.

/**
 * The webhook outbox's producer: called in the transaction that records a message
 * event, so an event and its delivery row commit together or not at all. Writes a
 * `pending` row, due at once, when the event has a public type, the account has a
 * webhook URL and its filter lets the type through. The body is fixed now, so every
 * retry posts the same bytes under the same `webhook-id` (the event's id).
 */
export async function enqueueWebhookDelivery(db: Executor, event: RecordedEvent): Promise<boolean> {
  const [row] = await queryRows<EventSubject>(db, EVENT_SUBJECT, [event.messageId]);
  return row !== undefined && enqueueWebhookDeliveryOf(db, row, event);
}

/** enqueueWebhookDelivery with the event's subject already read (the worker's outcome reads it in its own statement). */
export async function enqueueWebhookDeliveryOf(db: Executor, row: EventSubject, event: RecordedEvent): Promise<boolean> {
  // Every recorded event passes here: the one place public events are counted (store/event-tally.ts).
  noteRecordedEvent(db, row, event);
  const type = publicEventType(row.channel as Channel, event.type);
  if (type === undefined) return false;
  const first = firstEndpointAccepts(row, type);
  // The account's other endpoints are read only when it has some (the subject says so).
  const others = Number(row.other_endpoints) === 1 ? await acceptingEndpoints(db, row.account_id, type) : [];
  if (!first && others.length === 0) return false;
  const payload = eventBodyOf(row, type, event);
  const delivery = { accountId: row.account_id, messageId: event.messageId, type, payload, at: event.at };
  if (first) await insertDelivery(db, { id: event.id, ...delivery });
  await queueToEndpoints(db, event.id, others, delivery);
  return true;
}

/**
 * Inserts one delivery per endpoint other than the first. Its id is the event's first
 * 88 bits (time, version, and the whole per-millisecond counter of app/uuidv7-source.ts,
 * which ends in the eleventh byte) with the last 40 taken from a digest of the endpoint's
 * id: unique per (event, endpoint), and in the same order as the event ids even within one
 * millisecond, so an endpoint's deliveries of one message keep the order they happened in
 * (head of line, claim.ts).
 */
export async function queueToEndpoints(
  db: Executor,
  eventId: string,
  endpoints: readonly { readonly id: string }[],
  delivery: { accountId: string; messageId: string | null; type: string; payload: string; at: number },
): Promise<void> {
  for (const endpoint of endpoints) {
    await insertDelivery(db, { id: endpointDeliveryId(eventId, endpoint.id), endpointId: endpoint.id, ...delivery });
  }
}

/** `tttttttt-tttt-7sss-vsss-ss`: an id's characters up to the end of its counter (the uuid package's v7 puts its low 6 bits in byte 10). */
const EVENT_ORDER_CHARS = 26;

export function endpointDeliveryId(eventId: string, endpointId: string): string {
  return eventId.slice(0, EVENT_ORDER_CHARS) + createHash('sha256').update(`${eventId} ${endpointId}`).digest('hex').slice(0, 36 - EVENT_ORDER_CHARS);
}

/** Whether the account's first endpoint (the accounts row) takes an event of `type`: a URL, enabled, its filter lets it through. */
function firstEndpointAccepts(row: EventSubject, type: EventType): boolean {
  // No URL, or the endpoint is disabled (it answered 410 Gone, or the account disabled it): nothing is posted.
  if (row.webhook_url === null || row.webhook_disabled_at !== null) return false;
  const filter = row.webhook_events === null ? null : (JSON.parse(row.webhook_events) as EventType[]);
  return filterAccepts(filter, type);
}

/**
 * The delivery an event makes for the account's first endpoint, given its subject: its
 * public type and the body every attempt posts; undefined when nothing is posted there
 * (no URL, the endpoint disabled, an internal event, a type the filter leaves out).
 */
export function webhookDeliveryOf(row: EventSubject, event: RecordedEvent): { readonly type: EventType; readonly payload: string } | undefined {
  const type = publicEventType(row.channel as Channel, event.type);
  if (type === undefined || !firstEndpointAccepts(row, type)) return undefined;
  return { type, payload: eventBodyOf(row, type, event) };
}

/** The JSON body of an event's deliveries, the same for every endpoint. */
function eventBodyOf(row: EventSubject, type: EventType, event: RecordedEvent): string {
  const channel = row.channel as Channel;
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
    ...(row.mode === 'test' ? { test: true } : {}),
    ...(isSimulatorRecipient(channel, row.recipient) ? { simulated: true } : {}),
    ...(row.fallback === null || row.fallback === undefined ? {} : { fallback: JSON.parse(row.fallback) as { chain_id: string; leg: number; legs: number } }),
    ...(row.campaign_id === null ? {} : { campaign: { id: row.campaign_id, name: row.campaign_name ?? '', listIds: JSON.parse(row.campaign_lists ?? '[]') as string[] } }),
  }, event.data);
  return JSON.stringify(payload);
}

/** What an event's webhook delivery is made of: its message, account, send and campaign (EVENT_SUBJECT_COLUMNS). */
export interface EventSubject {
  account_id: string; channel: string; recipient: string; webhook_url: string | null; webhook_disabled_at: number | null; webhook_events: string | null;
  family: string; metadata: string | null; certified: number; track_opens: number; track_clicks: number;
  campaign_id: string | null; campaign_name: string | null; campaign_lists: string | null; mode: string; created_at: number | string;
  /** 1 when the account has endpoints besides the first (webhook_endpoints). */
  other_endpoints: number | string;
  /** A fallback chain's leg: JSON {chain_id, leg, legs} (migration 0036). */
  fallback?: string | null;
}

/** The columns of EventSubject, over `messages m` joined by EVENT_SUBJECT_JOINS. */
export const EVENT_SUBJECT_COLUMNS = `m.account_id, m.channel, m.recipient, a.webhook_url, a.webhook_disabled_at, a.webhook_events,
         s.family, s.metadata, s.certified, s.track_opens, s.track_clicks, s.fallback,
         m.campaign_id, c.name as campaign_name, c.lists as campaign_lists, m.mode, m.created_at,
         case when exists (select 1 from webhook_endpoints x where x.account_id = m.account_id) then 1 else 0 end as other_endpoints`;
export const EVENT_SUBJECT_JOINS = `join accounts a on a.id = m.account_id
  join sends s on s.id = m.send_id
  left join campaigns c on c.id = m.campaign_id`;

// Read for every event. Written `in ($1)`, not `= $1`: on node 24's SQLite the join then
// costs ≈ 40 µs instead of ≈ 240 (measured, same bytecode under EXPLAIN); PostgreSQL plans both alike.
const EVENT_SUBJECT = statement(`
  select ${EVENT_SUBJECT_COLUMNS}
  from messages m
  ${EVENT_SUBJECT_JOINS}
  where m.id in ($1)`);

/**
 * A pending delivery of something that happened at `at`, due at once: next_attempt_at
 * is 0, not `at`, because `at` may be a peer's clock running ahead of ours (a WhatsApp
 * status time) and the first attempt must not wait for it. Test events have no message.
 */
export async function insertDelivery(
  db: Executor,
  delivery: { id: string; accountId: string; messageId: string | null; type: string; payload: string; at: number; endpointId?: string },
): Promise<void> {
  await execute(db, INSERT_DELIVERY, [
    delivery.id, delivery.accountId, delivery.messageId, delivery.type, delivery.payload, delivery.at, delivery.endpointId ?? null,
  ]);
}

const INSERT_DELIVERY = statement(`
  insert into webhook_deliveries (id, account_id, message_id, type, payload, status, attempts, next_attempt_at,
                                  lease_owner, lease_expires_at, last_status_code, last_error, created_at, updated_at, endpoint_id)
  values ($1, $2, $3, $4, $5, 'pending', 0, 0, null, null, null, null, $6, $6, $7)`);

// ---- the delivery log, always scoped by account ----

export interface StoredDelivery {
  readonly id: string;
  readonly accountId: string;
  /** null: the account's first endpoint. */
  readonly endpointId: string | null;
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
  id: string; account_id: string; endpoint_id: string | null; message_id: string | null; type: string; payload: string; status: string; attempts: number;
  next_attempt_at: number; last_status_code: number | null; last_error: string | null; created_at: number; updated_at: number;
};

const DELIVERY_COLUMNS = [
  'id', 'account_id', 'endpoint_id', 'message_id', 'type', 'payload', 'status', 'attempts', 'next_attempt_at', 'last_status_code', 'last_error', 'created_at', 'updated_at',
] as const;

function toStoredDelivery(row: DeliveryRow): StoredDelivery {
  return {
    id: row.id, accountId: row.account_id, endpointId: row.endpoint_id, messageId: row.message_id, type: row.type, payload: row.payload, status: row.status as DeliveryStatus,
    attempts: Number(row.attempts), nextAttemptAt: Number(row.next_attempt_at),
    lastStatusCode: row.last_status_code === null ? null : Number(row.last_status_code), lastError: row.last_error,
    createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
  };
}

export interface DeliveryFilter {
  /** Whose log: null, the account's first endpoint's (the /v1/webhooks log); absent: every endpoint's. */
  readonly endpointId?: string | null;
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
    .$if(filter.endpointId !== undefined, (q) => q.where('endpoint_id', filter.endpointId === null ? 'is' : '=', filter.endpointId ?? null))
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
 * Puts the failed deliveries of the account's endpoint (null: its first) created at or after `since` back to `pending`,
 * due at `now`, at most `max` of them (the oldest first); returns how many.
 */
export async function retryFailedDeliveries(
  db: Executor, accountId: string, endpointId: string | null, since: number, now: number, max: number,
): Promise<number> {
  const chosen = db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('account_id', '=', accountId)
    .where('endpoint_id', endpointId === null ? 'is' : '=', endpointId)
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
