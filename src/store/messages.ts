import type { Channel } from '../domain/account.ts';
import type { MessageStatus } from '../domain/message-status.ts';
import type { Executor } from './database.ts';

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
      .values(part.map((m) => ({ message_id: m.id, available_at: now, attempts: 0, lease_owner: null, lease_expires_at: null })))
      .execute();
  }
}

/** Scoped by account: another account's msgid finds nothing. */
export async function findMessage(db: Executor, accountId: string, id: string): Promise<StoredMessage | undefined> {
  const row = await db.selectFrom('messages').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return row && {
    id: row.id, accountId: row.account_id, sendId: row.send_id, channel: row.channel as Channel, recipient: row.recipient,
    role: row.recipient_role, status: row.status as MessageStatus, createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
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

/** Records a status transition and its event together; events are born only here. */
export async function recordTransition(
  db: Executor,
  transition: { messageId: string; status: MessageStatus; eventId: string; at: number; data: Readonly<Record<string, unknown>> },
): Promise<void> {
  await db.updateTable('messages').set({ status: transition.status, updated_at: transition.at }).where('id', '=', transition.messageId).execute();
  await db
    .insertInto('message_events')
    .values({ id: transition.eventId, message_id: transition.messageId, type: transition.status, at: transition.at, data: JSON.stringify(transition.data) })
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
