import type { Channel } from '../domain/account.ts';
import type { InboundAttachmentSummary, InboundMessage, KeywordKind } from '../domain/inbound-message.ts';
import type { InboundQuery } from '../domain/inbound-query.ts';
import type { JsonObject } from '../domain/json-object.ts';
import type { Executor } from './database.ts';

// What people sent: inbound messages, their attachments, and the queries that find the
// account an SMS or WhatsApp reply belongs to. Always read scoped by account.

/** An inbound message to store: the domain's shape without its files, with the peer's id and the time it is stored. */
export type NewInbound = Omit<InboundMessage, 'attachments' | 'test'> & { readonly providerRef: string | null; readonly now: number };

/** Stores a message; false when the peer's id was stored already (a resend), and nothing is written. */
export async function insertInbound(db: Executor, message: NewInbound): Promise<boolean> {
  const result = await db.insertInto('inbound_messages').values({
    id: message.id, account_id: message.accountId, channel: message.channel, sender: message.from, recipient: message.to,
    text: message.text, content: message.content === null ? null : JSON.stringify(message.content), keyword: message.keyword,
    reply_to: message.replyTo, provider_ref: message.providerRef, received_at: message.receivedAt, created_at: message.now,
  }).onConflict((oc) => oc.columns(['channel', 'provider_ref']).doNothing()).executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

export interface NewInboundAttachment {
  readonly id: string;
  readonly inboundId: string;
  readonly accountId: string | null;
  readonly filename: string | null;
  readonly contentType: string | null;
  /** Stored now; otherwise fetched later by media reference. */
  readonly content?: Buffer | undefined;
  readonly mediaRef?: string | undefined;
  readonly now: number;
}

/** Stores a file of an inbound message; what GET /v1/inbound and the webhook show of it. */
export async function insertInboundAttachment(db: Executor, attachment: NewInboundAttachment): Promise<InboundAttachmentSummary> {
  const stored = attachment.content !== undefined;
  await db.insertInto('inbound_attachments').values({
    id: attachment.id, inbound_id: attachment.inboundId, account_id: attachment.accountId, filename: attachment.filename,
    content_type: attachment.contentType, media_ref: attachment.mediaRef ?? null,
    content: stored ? attachment.content.toString('base64') : null, last_error: null, size: stored ? attachment.content.length : 0,
    state: stored ? 'stored' : 'pending', attempts: 0, next_attempt_at: 0, lease_owner: null, lease_expires_at: null,
    created_at: attachment.now, updated_at: attachment.now,
  }).execute();
  return { id: attachment.id, filename: attachment.filename, contentType: attachment.contentType, size: stored ? attachment.content.length : 0, state: stored ? 'stored' : 'pending' };
}

export type InboundFilter = InboundQuery & {
  /** The channels the caller may read; absent: every channel. */
  readonly channels?: readonly Channel[] | undefined;
};

type InboundRow = {
  id: string; account_id: string | null; channel: string; sender: string; recipient: string; text: string | null; content: string | null;
  keyword: string | null; reply_to: string | null; received_at: number | string;
};

/** The account's inbound messages, newest first. */
export async function listInbound(db: Executor, accountId: string, filter: InboundFilter): Promise<InboundMessage[]> {
  let query = db.selectFrom('inbound_messages').selectAll().where('account_id', '=', accountId);
  if (filter.channel !== undefined) query = query.where('channel', '=', filter.channel);
  if (filter.channels !== undefined) query = query.where('channel', 'in', filter.channels.length === 0 ? [''] : [...filter.channels]);
  if (filter.from !== undefined) query = query.where('sender', '=', filter.from);
  if (filter.to !== undefined) query = query.where('recipient', '=', filter.to);
  if (filter.since !== undefined) query = query.where('received_at', '>=', filter.since);
  if (filter.until !== undefined) query = query.where('received_at', '<=', filter.until);
  if (filter.before !== undefined) query = query.where('id', '<', filter.before);
  const rows = await query.orderBy('id', 'desc').limit(filter.limit).execute();
  return withAttachments(db, rows);
}

/** One of the account's inbound messages. */
export async function findInbound(db: Executor, accountId: string, id: string): Promise<InboundMessage | undefined> {
  const row = await db.selectFrom('inbound_messages').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  if (row === undefined) return undefined;
  const [message] = await withAttachments(db, [row]);
  return message;
}

/** An attachment's bytes, for the account it belongs to; undefined when unknown or not stored (yet). */
export async function findInboundAttachment(db: Executor, accountId: string, inboundId: string, id: string): Promise<{ filename: string | null; contentType: string | null; content: Buffer | null; state: string } | undefined> {
  const row = await db.selectFrom('inbound_attachments').select(['filename', 'content_type', 'content', 'state'])
    .where('account_id', '=', accountId).where('inbound_id', '=', inboundId).where('id', '=', id).executeTakeFirst();
  if (row === undefined) return undefined;
  return { filename: row.filename, contentType: row.content_type, content: row.content === null ? null : Buffer.from(row.content, 'base64'), state: row.state };
}

async function withAttachments(db: Executor, rows: readonly InboundRow[]): Promise<InboundMessage[]> {
  if (rows.length === 0) return [];
  const attachments = await db.selectFrom('inbound_attachments').select(['id', 'inbound_id', 'filename', 'content_type', 'size', 'state'])
    .where('inbound_id', 'in', rows.map((row) => row.id)).orderBy('id').execute();
  const byMessage = new Map<string, InboundAttachmentSummary[]>();
  for (const a of attachments) {
    const list = byMessage.get(a.inbound_id) ?? [];
    list.push({ id: a.id, filename: a.filename, contentType: a.content_type, size: Number(a.size), state: a.state as InboundAttachmentSummary['state'] });
    byMessage.set(a.inbound_id, list);
  }
  return rows.map((row) => ({
    id: row.id,
    accountId: row.account_id,
    channel: row.channel as Channel,
    from: row.sender,
    to: row.recipient,
    text: row.text,
    content: row.content === null ? null : (JSON.parse(row.content) as JsonObject),
    keyword: row.keyword as KeywordKind | null,
    replyTo: row.reply_to,
    receivedAt: Number(row.received_at),
    attachments: byMessage.get(row.id) ?? [],
  }));
}

/**
 * The accounts that send SMS from `sender` (their smsSenders name it): the JSON arrays
 * that hold its quoted text, confirmed entry by entry (a sender has no LIKE wildcard:
 * domain/sms-sender.ts allows `+`, digits, letters and spaces only).
 */
export async function accountsWithSmsSender(db: Executor, sender: string): Promise<string[]> {
  if (/[%_\\]/.test(sender)) return [];
  const rows = await db.selectFrom('accounts').select(['id', 'sms_senders']).where('sms_senders', 'like', `%${JSON.stringify(sender)}%`).execute();
  return rows.filter((row) => (JSON.parse(row.sms_senders ?? '[]') as string[]).includes(sender)).map((row) => row.id);
}

/** Of `accountIds`, the one whose last message on `channel` to `recipient` is the newest; undefined when none wrote to it. */
export async function lastAccountToWrite(db: Executor, accountIds: readonly string[], channel: Channel, recipient: string): Promise<string | undefined> {
  if (accountIds.length === 0) return undefined;
  const row = await db.selectFrom('messages').select('account_id')
    .where('account_id', 'in', [...accountIds]).where('recipient', '=', recipient).where('channel', '=', channel)
    .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
  return row?.account_id;
}

/** The account's inbound messages of `ids`, in the order given (a conversation's page, picked by store/conversations.ts). */
export async function findInboundMany(db: Executor, accountId: string, ids: readonly string[]): Promise<InboundMessage[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('inbound_messages').selectAll().where('account_id', '=', accountId).where('id', 'in', [...ids]).execute();
  const byId = new Map((await withAttachments(db, rows)).map((message) => [message.id, message]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** Messages nobody could be routed to, newest first: the operator's to look at. */
export async function listUnroutedInbound(db: Executor, filter: { readonly before?: string | undefined; readonly limit: number }): Promise<InboundMessage[]> {
  let query = db.selectFrom('inbound_messages').selectAll().where('account_id', 'is', null);
  if (filter.before !== undefined) query = query.where('id', '<', filter.before);
  return withAttachments(db, await query.orderBy('id', 'desc').limit(filter.limit).execute());
}
