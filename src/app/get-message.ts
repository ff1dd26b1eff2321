import type { Channel } from '../domain/account.ts';
import { parseMessageQuery } from '../domain/message-query.ts';
import { ok, type Result } from '../domain/result.ts';
import { findCapture, findMessage, listMessageEvents, listMessages, type StoredMessage } from '../store/messages.ts';
import type { AppDeps } from './deps.ts';

export interface MessageView {
  readonly msgid: string;
  readonly channel: Channel;
  readonly status: string;
  readonly recipient: string;
  readonly created_at: string;
  readonly events: readonly ({ readonly type: string; readonly at: string } & Readonly<Record<string, unknown>>)[];
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** GET /v1/messages/:msgid — the account's own messages only. */
export async function getMessage(deps: AppDeps, accountId: string, msgid: string): Promise<MessageView | undefined> {
  const message = await findMessage(deps.db, accountId, msgid);
  if (!message) return undefined;
  const events = await listMessageEvents(deps.db, message.id);
  return {
    msgid: message.id,
    channel: message.channel,
    status: message.status,
    recipient: message.recipient,
    created_at: iso(message.createdAt),
    events: events.map((e) => ({ ...e.data, type: e.type, at: iso(e.at) })),
  };
}

export interface MessageSummary {
  readonly msgid: string;
  readonly channel: Channel;
  readonly status: string;
  readonly recipient: string;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface MessagePage {
  readonly data: readonly MessageSummary[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  readonly next_cursor: string | null;
}

const summary = (m: StoredMessage): MessageSummary => ({
  msgid: m.id, channel: m.channel, status: m.status, recipient: m.recipient, created_at: iso(m.createdAt), updated_at: iso(m.updatedAt),
});

/** GET /v1/messages — the account's messages, newest first, filtered, one page at a time (keyset cursor). */
export async function listAccountMessages(deps: AppDeps, accountId: string, rawQuery: unknown): Promise<Result<MessagePage>> {
  const query = parseMessageQuery(rawQuery);
  if (!query.ok) return query;
  const { cursor, limit, ...filter } = query.value;
  // One row more than asked tells whether another page exists.
  const rows = await listMessages(deps.db, accountId, { ...filter, ...(cursor === undefined ? {} : { before: cursor }), limit: limit + 1 });
  const page = rows.slice(0, limit);
  return ok({ data: page.map(summary), next_cursor: rows.length > limit ? (page.at(-1)?.id ?? null) : null });
}

/** GET /v1/messages/:msgid/raw — what the capture transport stored, for the account's own message. */
export async function getCapturedMessage(deps: AppDeps, accountId: string, msgid: string): Promise<{ contentType: string; body: string } | undefined> {
  const message = await findMessage(deps.db, accountId, msgid);
  if (!message) return undefined;
  return findCapture(deps.db, message.id);
}
