import { sql } from 'kysely';
import type { Executor } from './database.ts';

// The retention sweep's statements (app/retention-sweep.ts): sends older than the
// retention period, oldest first from where the last batch stopped (the sends_created
// index, migration 0018), lose their content; every other row is reached from the send
// through the indexes the service already has (messages_send, message_events_message,
// webhook_deliveries_message, the mime_pieces key).

/** Where the sweep stands: the last send it has purged, in (created_at, id) order. */
export interface SendPosition {
  readonly createdAt: number;
  readonly id: string;
}

export interface OldSend {
  readonly id: string;
  readonly createdAt: number;
  readonly channel: string;
  readonly payload: string;
}

/** Up to `limit` sends created before `before` and after `after`, oldest first. */
export async function oldSends(db: Executor, before: number, after: SendPosition | undefined, limit: number): Promise<OldSend[]> {
  const from = after ?? { createdAt: -1, id: '' };
  const { rows } = await sql<{ id: string; created_at: number | string; channel: string; payload: string }>`
    select id, created_at, channel, payload from sends
    where created_at < ${before} and (created_at > ${from.createdAt} or (created_at = ${from.createdAt} and id > ${from.id}))
    order by created_at, id
    limit ${limit}`.execute(db);
  return rows.map((row) => ({ id: row.id, createdAt: Number(row.created_at), channel: row.channel, payload: row.payload }));
}

/** How many messages each of the sends has. */
export async function messageCounts(db: Executor, sendIds: readonly string[]): Promise<Map<string, number>> {
  if (sendIds.length === 0) return new Map();
  const { rows } = await sql<{ send_id: string; n: number | string }>`
    select send_id, count(*) as n from messages where send_id in (${sql.join(sendIds)}) group by send_id`.execute(db);
  return new Map(rows.map((row) => [row.send_id, Number(row.n)]));
}

/** Those of `sendIds` with a message still in the outbox: still being delivered, so kept whole. */
export async function sendsStillQueued(db: Executor, sendIds: readonly string[]): Promise<Set<string>> {
  if (sendIds.length === 0) return new Set();
  const { rows } = await sql<{ send_id: string }>`
    select distinct m.send_id from messages m join outbox o on o.message_id = m.id
    where m.send_id in (${sql.join(sendIds)})`.execute(db);
  return new Set(rows.map((row) => row.send_id));
}

export interface PurgedRows {
  readonly captures: number;
  readonly pieces: number;
  readonly events: number;
  readonly webhookDeliveries: number;
}

/**
 * Purges what the sends' messages left behind: their captured MIME, the MIME pieces of
 * sends without a certificate (a certificate's .eml is laid out over its send's pieces
 * and is kept), and their webhook deliveries that are finished (with their attempts).
 * The sends' payloads and the events are rewritten by the caller, row by row.
 */
export async function purgeSendLeftovers(tx: Executor, sendIds: readonly string[]): Promise<Omit<PurgedRows, 'events'>> {
  if (sendIds.length === 0) return { captures: 0, pieces: 0, webhookDeliveries: 0 };
  const sends = sql.join(sendIds);
  const captures = await sql`
    delete from captures where message_id in (select id from messages where send_id in (${sends}))`.execute(tx);
  const pieces = await sql`
    delete from mime_pieces where send_id in (${sends})
    and not exists (select 1 from certificates c join messages m on m.id = c.message_id where m.send_id = mime_pieces.send_id)`.execute(tx);
  const finished = sql`select d.id from webhook_deliveries d join messages m on m.id = d.message_id
    where m.send_id in (${sends}) and d.status in ('succeeded', 'failed')`;
  await sql`delete from webhook_attempts where delivery_id in (${finished})`.execute(tx);
  const deliveries = await sql`delete from webhook_deliveries where id in (${finished})`.execute(tx);
  return {
    captures: Number(captures.numAffectedRows ?? 0n),
    pieces: Number(pieces.numAffectedRows ?? 0n),
    webhookDeliveries: Number(deliveries.numAffectedRows ?? 0n),
  };
}

export async function replaceSendPayload(tx: Executor, sendId: string, payload: string): Promise<void> {
  // The subject is content (a campaign's names its contact); the sender stays, as in the purged payload.
  await tx.updateTable('sends').set({ payload, subject: null }).where('id', '=', sendId).execute();
}

export interface StoredEvent {
  readonly id: string;
  readonly type: string;
  readonly data: string;
}

/** The events of the sends' messages. */
export async function eventsOfSends(db: Executor, sendIds: readonly string[]): Promise<StoredEvent[]> {
  if (sendIds.length === 0) return [];
  const { rows } = await sql<StoredEvent>`
    select e.id, e.type, e.data from message_events e join messages m on m.id = e.message_id
    where m.send_id in (${sql.join(sendIds)})`.execute(db);
  return rows;
}

export async function replaceEventData(tx: Executor, eventId: string, data: string): Promise<void> {
  await tx.updateTable('message_events').set({ data }).where('id', '=', eventId).execute();
}

/** Up to `limit` inbound messages stored before `before` and after `after`, oldest first. */
export async function oldInbound(db: Executor, before: number, after: SendPosition | undefined, limit: number): Promise<SendPosition[]> {
  const from = after ?? { createdAt: -1, id: '' };
  const { rows } = await sql<{ id: string; created_at: number | string }>`
    select id, created_at from inbound_messages
    where created_at < ${before} and (created_at > ${from.createdAt} or (created_at = ${from.createdAt} and id > ${from.id}))
    order by created_at, id
    limit ${limit}`.execute(db);
  return rows.map((row) => ({ id: row.id, createdAt: Number(row.created_at) }));
}

/** What people sent loses its content: the text and the channel's fields (kept: who, when, which keyword), the files. */
export async function purgeInboundContent(tx: Executor, ids: readonly string[]): Promise<{ readonly attachments: number }> {
  if (ids.length === 0) return { attachments: 0 };
  await tx.updateTable('inbound_messages').set({ text: null, content: JSON.stringify({ purged: true }) }).where('id', 'in', [...ids]).execute();
  const attachments = await tx.deleteFrom('inbound_attachments').where('inbound_id', 'in', [...ids]).executeTakeFirst();
  return { attachments: Number(attachments.numDeletedRows) };
}
