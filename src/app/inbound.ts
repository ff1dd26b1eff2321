import type { Channel } from '../domain/account.ts';
import { RAW_MESSAGE_FILENAME, RAW_MESSAGE_TYPE } from '../domain/inbound-email.ts';
import { inboundData, type InboundMessage } from '../domain/inbound-message.ts';
import { DEFAULT_INBOUND_PAGE, refineInboundQuery, type InboundListQuery } from '../domain/inbound-query.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import { findInbound, findInboundAttachment, listInbound, listUnroutedInbound } from '../store/inbound-messages.ts';
import type { AppDeps } from './deps.ts';

// GET /v1/inbound and its items: what people sent the account, as the `*.received`
// webhooks posted it, on the channels the caller may read.

export interface InboundPage {
  readonly data: readonly Record<string, unknown>[];
  readonly next_cursor: string | null;
}

export async function listAccountInbound(deps: Pick<AppDeps, 'db' | 'publicUrl'>, accountId: string, checked: InboundListQuery, channels: readonly Channel[]): Promise<Result<InboundPage>> {
  const query = refineInboundQuery(checked);
  if (!query.ok) return query;
  if (query.value.channel !== undefined && !channels.includes(query.value.channel)) return reject('keyNotAuthorized');
  const { limit } = query.value;
  // One row more than asked tells whether another page exists.
  const rows = await listInbound(deps.db, accountId, { ...query.value, channels, limit: limit + 1 });
  const page = rows.slice(0, limit);
  return ok({ data: page.map((row) => inboundData(row, deps.publicUrl)), next_cursor: rows.length > limit ? (page.at(-1)?.id ?? null) : null });
}

async function readable(deps: Pick<AppDeps, 'db'>, accountId: string, id: string, channels: readonly Channel[]): Promise<Result<InboundMessage>> {
  const message = await findInbound(deps.db, accountId, id);
  // Another account's message, or one of a channel the key may not read: not found either way.
  return message === undefined || !channels.includes(message.channel) ? reject('notFound') : ok(message);
}

export async function getAccountInbound(deps: Pick<AppDeps, 'db' | 'publicUrl'>, accountId: string, id: string, channels: readonly Channel[]): Promise<Result<Record<string, unknown>>> {
  const message = await readable(deps, accountId, id, channels);
  return message.ok ? ok(inboundData(message.value, deps.publicUrl)) : message;
}

/** An attachment's bytes; a media file still being fetched answers 404 with its state in the detail. */
export async function getInboundAttachment(
  deps: Pick<AppDeps, 'db'>, accountId: string, id: string, attachmentId: string, channels: readonly Channel[],
): Promise<Result<{ filename: string | null; contentType: string; content: Buffer }>> {
  const message = await readable(deps, accountId, id, channels);
  if (!message.ok) return message;
  const attachment = await findInboundAttachment(deps.db, accountId, id, attachmentId);
  if (attachment === undefined) return reject('notFound');
  if (attachment.content === null) return reject('notFound', { detail: `attachment ${attachment.state}` });
  return ok({ filename: attachment.filename, contentType: attachment.contentType ?? 'application/octet-stream', content: attachment.content });
}

/**
 * The message as it arrived: an email's MIME (message/rfc822), or for SMS and WhatsApp
 * the fields the peer gave, as JSON.
 */
export async function getInboundRaw(
  deps: Pick<AppDeps, 'db'>, accountId: string, id: string, channels: readonly Channel[],
): Promise<Result<{ contentType: string; body: Buffer | string }>> {
  const found = await readable(deps, accountId, id, channels);
  if (!found.ok) return found;
  const message = found.value;
  if (message.channel === 'email') {
    const raw = message.attachments.find((a) => a.filename === RAW_MESSAGE_FILENAME && a.contentType === RAW_MESSAGE_TYPE);
    const bytes = raw === undefined ? undefined : await findInboundAttachment(deps.db, accountId, id, raw.id);
    if (bytes?.content == null) return reject('notFound');
    return ok({ contentType: RAW_MESSAGE_TYPE, body: bytes.content });
  }
  return ok({ contentType: 'application/json; charset=utf-8', body: JSON.stringify({ ...(message.content ?? {}), from: message.from, to: message.to, text: message.text }) });
}

/** GET /admin/v1/unrouted-inbound: what people sent that no account could be found for (a shared number nobody wrote from, a number no account has). */
export async function listUnrouted(deps: Pick<AppDeps, 'db' | 'publicUrl'>, query: { readonly cursor?: string; readonly limit?: number }): Promise<Result<{ messages: Record<string, unknown>[]; nextCursor: string | null }>> {
  const limit = query.limit ?? DEFAULT_INBOUND_PAGE;
  const rows = await listUnroutedInbound(deps.db, { before: query.cursor, limit: limit + 1 });
  const page = rows.slice(0, limit);
  return ok({ messages: page.map((row) => inboundData(row, deps.publicUrl)), nextCursor: rows.length > limit ? (page.at(-1)?.id ?? null) : null });
}
