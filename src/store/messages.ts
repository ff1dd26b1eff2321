import type { Channel } from '../domain/account.ts';
import { predecessorsOf, type MessageStatus } from '../domain/message-status.ts';
import type { Executor, MessageRow } from './database.ts';

export interface NewMessage {
  readonly id: string;
  readonly recipient: string;
  readonly role: 'to' | 'cc' | 'bcc';
  readonly costMessages: number;
  readonly costBalance: number;
}

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
 * Call inside the transaction that debits the account.
 */
export async function insertSend(
  db: Executor,
  send: { id: string; accountId: string; channel: Channel; payload: unknown; now: number; eventIds: () => string },
  messages: readonly NewMessage[],
): Promise<void> {
  const { id: sendId, accountId, channel, now } = send;
  await db.insertInto('sends').values({ id: sendId, account_id: accountId, channel, payload: JSON.stringify(send.payload), created_at: now }).execute();
  for (const part of chunks(messages)) {
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

export async function listMessageEvents(db: Executor, messageId: string): Promise<MessageEvent[]> {
  const rows = await db.selectFrom('message_events').select(['type', 'at', 'data']).where('message_id', '=', messageId).orderBy('id').execute();
  return rows.map((r) => ({ type: r.type, at: Number(r.at), data: JSON.parse(r.data) as Record<string, unknown> }));
}

export async function loadSendPayload(db: Executor, sendId: string): Promise<unknown> {
  const row = await db.selectFrom('sends').select('payload').where('id', '=', sendId).executeTakeFirstOrThrow();
  return JSON.parse(row.payload) as unknown;
}

/**
 * Records a status transition and its event together; events are born only here.
 * The status moves only from an allowed predecessor, so a late report (a `sent`
 * recorded after a fast receipt already said `delivered`) adds its event to the
 * history without moving the message backwards. Returns whether the status moved.
 */
export async function recordTransition(
  db: Executor,
  transition: { messageId: string; status: MessageStatus; eventId: string; at: number; data: Readonly<Record<string, unknown>>; providerRef?: string },
): Promise<boolean> {
  const moved = await db
    .updateTable('messages')
    .set({ status: transition.status, updated_at: transition.at, ...(transition.providerRef === undefined ? {} : { provider_ref: transition.providerRef }) })
    .where('id', '=', transition.messageId)
    .where('status', 'in', predecessorsOf(transition.status))
    .executeTakeFirst();
  if (transition.providerRef !== undefined && moved.numUpdatedRows === 0n) {
    await db.updateTable('messages').set({ provider_ref: transition.providerRef }).where('id', '=', transition.messageId).execute();
  }
  await db
    .insertInto('message_events')
    .values({ id: transition.eventId, message_id: transition.messageId, type: transition.status, at: transition.at, data: JSON.stringify(transition.data) })
    .execute();
  return moved.numUpdatedRows === 1n;
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
