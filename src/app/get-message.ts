import type { Channel } from '../domain/account.ts';
import { encodeMessageCursor, refineMessageQuery, type MessageListQuery } from '../domain/message-query.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import { findCapture, findMessage, findSendSource, listMessages, loadSendPayload, messageCreatedAt, type SendSource, type StoredMessage } from '../store/messages.ts';
import { messageTimeline } from '../store/message-timeline.ts';
import type { EmailPayload } from '../domain/outbound.ts';
import type { AppDeps } from './deps.ts';
import { isPurgedPayload } from './retention-sweep.ts';
import { emailBodiesOf } from './email-bodies.ts';

export interface MessageView {
  readonly msgid: string;
  readonly channel: Channel;
  readonly status: string;
  readonly recipient: string;
  readonly created_at: string;
  /** Only on a test key's message (docs/sandbox.md); live messages look as they always did. */
  readonly mode?: 'test';
  readonly source: SendSource;
  readonly events: readonly ({ readonly type: string; readonly at: string } & Readonly<Record<string, unknown>>)[];
}

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * The account's message, when the caller may read its channel (`channels`: the
 * channels the caller's scopes reach): notFound for another account's msgid,
 * keyNotAuthorized for a channel the caller lacks.
 */
async function readableMessage(deps: AppDeps, accountId: string, msgid: string, channels: readonly Channel[]): Promise<Result<StoredMessage>> {
  const message = await findMessage(deps.db, accountId, msgid);
  if (!message) return reject('notFound');
  return channels.includes(message.channel) ? ok(message) : reject('keyNotAuthorized');
}

/** GET /v1/messages/:msgid — the account's own messages only. */
export async function getMessage(deps: AppDeps, accountId: string, msgid: string, channels: readonly Channel[]): Promise<Result<MessageView>> {
  const readable = await readableMessage(deps, accountId, msgid, channels);
  if (!readable.ok) return readable;
  const message = readable.value;
  const [events, source] = await Promise.all([messageTimeline(deps.db, message), findSendSource(deps.db, message.sendId)]);
  return ok({
    msgid: message.id,
    channel: message.channel,
    status: message.status,
    recipient: message.recipient,
    created_at: iso(message.createdAt),
    ...testMark(message),
    source,
    events: events.map((e) => ({ ...e.data, type: e.type, at: iso(e.at) })),
  });
}

export interface MessageSummary {
  readonly msgid: string;
  readonly channel: Channel;
  readonly status: string;
  readonly recipient: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly mode?: 'test';
}

export interface MessagePage {
  readonly data: readonly MessageSummary[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  readonly next_cursor: string | null;
}

const summary = (m: StoredMessage): MessageSummary => ({
  msgid: m.id, channel: m.channel, status: m.status, recipient: m.recipient, created_at: iso(m.createdAt), updated_at: iso(m.updatedAt), ...testMark(m),
});

/** A test key's message says so; a live one carries no mode field (its shape is the interface's). */
const testMark = (m: StoredMessage): { mode?: 'test' } => (m.mode === 'test' ? { mode: 'test' } : {});

/**
 * GET /v1/messages — the account's messages of the channels the caller may read
 * (`channels`), newest first, filtered, one page at a time (keyset cursor). Asking
 * for a channel the caller lacks is keyNotAuthorized.
 */
export async function listAccountMessages(deps: AppDeps, accountId: string, checked: MessageListQuery, channels: readonly Channel[]): Promise<Result<MessagePage>> {
  const query = refineMessageQuery(checked);
  if (!query.ok) return query;
  const { cursor, limit, channel, ...filter } = query.value;
  if (channel !== undefined && !channels.includes(channel)) return reject('keyNotAuthorized');
  const wanted = channel === undefined ? channels : [channel];
  if (wanted.length === 0) return ok({ data: [], next_cursor: null });
  let after: { createdAt: number; id: string } | undefined;
  if (cursor !== undefined) {
    // A bare msgid (a cursor from before the log was ordered by time): its time from the store.
    const createdAt = cursor.createdAt ?? await messageCreatedAt(deps.db, accountId, cursor.id);
    if (createdAt === undefined) return reject('invalidField', { detail: 'cursor must be the next_cursor of a previous page' });
    after = { createdAt, id: cursor.id };
  }
  // One row more than asked tells whether another page exists.
  const rows = await listMessages(deps.db, accountId, { ...filter, channels: wanted, ...(after === undefined ? {} : { after }), limit: limit + 1 });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return ok({ data: page.map(summary), next_cursor: rows.length > limit && last !== undefined ? encodeMessageCursor({ createdAt: last.createdAt, id: last.id }) : null });
}

/** GET /v1/messages/:msgid/raw — what the capture transport stored, for the account's own message. */
export async function getCapturedMessage(
  deps: AppDeps, accountId: string, msgid: string, channels: readonly Channel[],
): Promise<Result<{ contentType: string; body: string }>> {
  const readable = await readableMessage(deps, accountId, msgid, channels);
  if (!readable.ok) return readable;
  const capture = await findCapture(deps.db, readable.value.id);
  if (capture !== undefined) return ok(capture);
  return isPurgedPayload(await loadSendPayload(deps.db, readable.value.sendId)) ? reject('contentPurged') : reject('notFound');
}

/** The email as its recipient sees it: the HTML that was sent, or its text part when it had none. */
export interface EmailPreview {
  readonly html: string | null;
  readonly text: string | null;
}

/**
 * GET /v1/messages/:msgid/preview — the rendered content stored with the accepted
 * request (whatever the transport), for the web application's sandboxed frame; a
 * message of another channel has no email to show (notFound).
 */
export async function getEmailPreview(deps: AppDeps, accountId: string, msgid: string, channels: readonly Channel[]): Promise<Result<EmailPreview>> {
  const readable = await readableMessage(deps, accountId, msgid, channels);
  if (!readable.ok) return readable;
  if (readable.value.channel !== 'email') return reject('notFound');
  const payload = (await loadSendPayload(deps.db, readable.value.sendId)) as Partial<EmailPayload>;
  if (isPurgedPayload(payload)) return reject('contentPurged');
  return ok(await emailBodiesOf(payload));
}
