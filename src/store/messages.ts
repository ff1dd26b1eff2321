import type { Channel } from '../domain/account.ts';
import { predecessorsOf, type MessageStatus } from '../domain/message-status.ts';
import type { Executor, MessageRow } from './database.ts';
import { enqueueWebhookDelivery } from './webhook-deliveries.ts';

export interface NewMessage {
  readonly id: string;
  readonly recipient: string;
  readonly role: 'to' | 'cc' | 'bcc';
  readonly costMessages: number;
  readonly costBalance: number;
  /** A suppressed recipient: stored as `dropped` with its event, never queued, never billed (cost 0). */
  readonly dropped?: boolean;
}

/** What a send asked for beyond its content, stored with it for events and delivery. */
export interface SendOptions {
  readonly family: 'transactional' | 'campaign';
  readonly metadata: Readonly<Record<string, unknown>> | null;
  readonly certified: boolean;
  readonly tracking: { readonly opens: boolean; readonly clicks: boolean };
}

const DEFAULT_SEND_OPTIONS: SendOptions = { family: 'transactional', metadata: null, certified: false, tracking: { opens: false, clicks: false } };

export interface StoredMessage {
  readonly id: string;
  readonly accountId: string;
  readonly sendId: string;
  readonly channel: Channel;
  readonly recipient: string;
  readonly role: string;
  readonly status: MessageStatus;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly providerRef: string | null;
}

export interface MessageEvent {
  readonly type: string;
  readonly at: number;
  readonly data: Readonly<Record<string, unknown>>;
}

// SQLite caps bound parameters per statement (32766); 9 columns × 500 rows stays far below.
const INSERT_CHUNK = 500;

function* chunks<T>(items: readonly T[]): Generator<T[]> {
  for (let i = 0; i < items.length; i += INSERT_CHUNK) yield items.slice(i, i + INSERT_CHUNK);
}

/**
 * Stores one accepted request: its shared payload, a message per recipient, a
 * `queued` event per message, and the outbox rows that make the worker deliver them.
 * A `dropped` recipient gets its message row and `dropped` event (with its webhook
 * delivery) and no outbox row. Call inside the transaction that debits the account.
 */
export async function insertSend(
  db: Executor,
  send: { id: string; accountId: string; channel: Channel; payload: unknown; now: number; eventIds: () => string; options?: SendOptions },
  messages: readonly NewMessage[],
): Promise<void> {
  const { id: sendId, accountId, channel, now } = send;
  const options = send.options ?? DEFAULT_SEND_OPTIONS;
  await db.insertInto('sends').values({
    id: sendId, account_id: accountId, channel, payload: JSON.stringify(send.payload), created_at: now,
    family: options.family, metadata: options.metadata === null ? null : JSON.stringify(options.metadata),
    certified: options.certified ? 1 : 0, track_opens: options.tracking.opens ? 1 : 0, track_clicks: options.tracking.clicks ? 1 : 0,
  }).execute();
  const queued = messages.filter((m) => m.dropped !== true);
  for (const part of chunks(queued)) {
    await db
      .insertInto('messages')
      .values(part.map((m) => ({
        id: m.id, account_id: accountId, send_id: sendId, channel, recipient: m.recipient, recipient_role: m.role,
        status: 'queued', cost_messages: m.costMessages, cost_balance: m.costBalance, created_at: now, updated_at: now,
      })))
      .execute();
    await db
      .insertInto('message_events')
      .values(part.map((m) => ({ id: send.eventIds(), message_id: m.id, type: 'queued', at: now, data: '{}' })))
      .execute();
    await db
      .insertInto('outbox')
      .values(part.map((m) => ({ message_id: m.id, channel, available_at: now, attempts: 0, lease_owner: null, lease_expires_at: null })))
      .execute();
  }
  for (const m of messages.filter((m) => m.dropped === true)) {
    await db
      .insertInto('messages')
      .values({
        id: m.id, account_id: accountId, send_id: sendId, channel, recipient: m.recipient, recipient_role: m.role,
        status: 'dropped', cost_messages: 0, cost_balance: 0, created_at: now, updated_at: now,
      })
      .execute();
    await recordEvent(db, { messageId: m.id, type: 'dropped', eventId: send.eventIds(), at: now, data: { reason: 'suppressed' } });
  }
}

/** Scoped by account: another account's msgid finds nothing. */
export async function findMessage(db: Executor, accountId: string, id: string): Promise<StoredMessage | undefined> {
  const row = await db.selectFrom('messages').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return row && toStoredMessage(row);
}

function toStoredMessage(row: MessageRow): StoredMessage {
  return {
    id: row.id, accountId: row.account_id, sendId: row.send_id, channel: row.channel as Channel, recipient: row.recipient,
    role: row.recipient_role, status: row.status as MessageStatus, createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
    providerRef: row.provider_ref,
  };
}

export interface MessageFilter {
  readonly status?: MessageStatus;
  readonly channel?: Channel;
  /** Created at or after (epoch ms). */
  readonly since?: number;
  readonly recipient?: string;
  /** Keyset cursor: only messages with a smaller id (UUIDv7, so older). */
  readonly before?: string;
  readonly limit: number;
}

/** The account's messages, newest first, one page; ids are UUIDv7 so id order is time order. */
export async function listMessages(db: Executor, accountId: string, filter: MessageFilter): Promise<StoredMessage[]> {
  const rows = await db
    .selectFrom('messages')
    .selectAll()
    .where('account_id', '=', accountId)
    .$if(filter.status !== undefined, (q) => q.where('status', '=', filter.status ?? ''))
    .$if(filter.channel !== undefined, (q) => q.where('channel', '=', filter.channel ?? ''))
    .$if(filter.since !== undefined, (q) => q.where('created_at', '>=', filter.since ?? 0))
    .$if(filter.recipient !== undefined, (q) => q.where('recipient', '=', filter.recipient ?? ''))
    .$if(filter.before !== undefined, (q) => q.where('id', '<', filter.before ?? ''))
    .orderBy('id', 'desc')
    .limit(filter.limit)
    .execute();
  return rows.map(toStoredMessage);
}

export async function listMessageEvents(db: Executor, messageId: string): Promise<MessageEvent[]> {
  const rows = await db.selectFrom('message_events').select(['type', 'at', 'data']).where('message_id', '=', messageId).orderBy('id').execute();
  return rows.map((r) => ({ type: r.type, at: Number(r.at), data: JSON.parse(r.data) as Record<string, unknown> }));
}

export async function loadSendPayload(db: Executor, sendId: string): Promise<unknown> {
  const row = await db.selectFrom('sends').select('payload').where('id', '=', sendId).executeTakeFirstOrThrow();
  return JSON.parse(row.payload) as unknown;
}

/**
 * Records a message event, and with it a status transition when `status` is given;
 * events are born only here (and in insertSend and markSending, for the internal
 * `queued`, `dropped` and `sending`). The status moves only from an allowed
 * predecessor, so a late report (a `sent` recorded after a fast receipt already said
 * `delivered`) adds its event to the history without moving the message backwards.
 * The event's webhook delivery, if the account wants it, commits with it.
 * Returns whether the status moved (false when no status was asked for).
 */
export async function recordEvent(
  db: Executor,
  event: {
    messageId: string; eventId: string; at: number; data: Readonly<Record<string, unknown>>; providerRef?: string;
  } & ({ status: MessageStatus; type?: string } | { status?: undefined; type: string }),
): Promise<boolean> {
  let moved = false;
  if (event.status !== undefined) {
    const result = await db
      .updateTable('messages')
      .set({ status: event.status, updated_at: event.at, ...(event.providerRef === undefined ? {} : { provider_ref: event.providerRef }) })
      .where('id', '=', event.messageId)
      .where('status', 'in', predecessorsOf(event.status))
      .executeTakeFirst();
    moved = result.numUpdatedRows === 1n;
  }
  if (event.providerRef !== undefined && !moved) {
    await db.updateTable('messages').set({ provider_ref: event.providerRef }).where('id', '=', event.messageId).execute();
  }
  const type = event.type ?? event.status;
  if (type === undefined) throw new TypeError('recordEvent needs a status or a type');
  await db
    .insertInto('message_events')
    .values({ id: event.eventId, message_id: event.messageId, type, at: event.at, data: JSON.stringify(event.data) })
    .execute();
  await enqueueWebhookDelivery(db, { id: event.eventId, messageId: event.messageId, type, at: event.at, data: event.data });
  return moved;
}

/** The message a peer knows by `providerRef` (SMPP message_id, WhatsApp wamid). */
export async function findMessageByProviderRef(db: Executor, channel: Channel, providerRef: string): Promise<StoredMessage | undefined> {
  const row = await db.selectFrom('messages').selectAll().where('channel', '=', channel).where('provider_ref', '=', providerRef).executeTakeFirst();
  return row && toStoredMessage(row);
}

/** Marks claimed messages as `sending`, with an event each: the first transition of every attempt. */
export async function markSending(db: Executor, messages: readonly { id: string; eventId: string; attempt: number }[], at: number): Promise<void> {
  if (messages.length === 0) return;
  await db
    .updateTable('messages')
    .set({ status: 'sending', updated_at: at })
    .where('id', 'in', messages.map((m) => m.id))
    .where('status', 'in', predecessorsOf('sending'))
    .execute();
  await db
    .insertInto('message_events')
    .values(messages.map((m) => ({ id: m.eventId, message_id: m.id, type: 'sending', at, data: JSON.stringify({ attempt: m.attempt }) })))
    .execute();
}

export async function putCapture(db: Executor, capture: { messageId: string; contentType: string; body: string; at: number }): Promise<void> {
  await db
    .insertInto('captures')
    .values({ message_id: capture.messageId, content_type: capture.contentType, body: capture.body, created_at: capture.at })
    .onConflict((oc) => oc.column('message_id').doUpdateSet({ content_type: capture.contentType, body: capture.body, created_at: capture.at }))
    .execute();
}

export async function findCapture(db: Executor, messageId: string): Promise<{ contentType: string; body: string } | undefined> {
  const row = await db.selectFrom('captures').select(['content_type', 'body']).where('message_id', '=', messageId).executeTakeFirst();
  return row && { contentType: row.content_type, body: row.body };
}
