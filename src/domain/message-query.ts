import { Type, type Static } from '@sinclair/typebox';
import { CHANNELS, type Channel } from './account.ts';
import { KEY_MODES, type KeyMode } from './key-mode.ts';
import { MESSAGE_STATUSES, type MessageStatus } from './message-status.ts';
import { ok, reject, type Result } from './result.ts';

// GET /v1/messages?status=&channel=&since=&until=&recipient=&mode=&cursor=&limit= — the query,
// declared once (checked by the route before its handler: http/input-validation.ts),
// then refined here. The log is ordered by (created_at, id), newest first, so a cursor
// names both of the previous page's last message: `<created_at ms>_<msgid>`, opaque to
// clients. A bare msgid (the cursors herald gave before) is still taken: the store looks
// its time up.

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const CURSOR = `^(?:[0-9]{1,15}_)?${UUID}$`;
const SINCE_PROBLEM = 'must be an ISO 8601 time or epoch milliseconds';

export const MessageListQuery = Type.Object({
  status: Type.Optional(Type.Union(MESSAGE_STATUSES.map((s) => Type.Literal(s)), { errorMessage: `must be one of ${MESSAGE_STATUSES.join(', ')}` })),
  channel: Type.Optional(Type.Union(CHANNELS.map((c) => Type.Literal(c)), { errorMessage: 'must be email, sms or whatsapp' })),
  since: Type.Optional(Type.String({ errorMessage: SINCE_PROBLEM, description: 'Created at or after: ISO 8601 time or epoch milliseconds' })),
  until: Type.Optional(Type.String({ errorMessage: SINCE_PROBLEM, description: 'Created before: ISO 8601 time or epoch milliseconds' })),
  recipient: Type.Optional(Type.String({ maxLength: 320, errorMessage: 'must be one address or number', description: 'Exact recipient address or number' })),
  mode: Type.Optional(Type.Union(KEY_MODES.map((m) => Type.Literal(m)), {
    errorMessage: 'must be live or test', description: 'live (default): messages sent with live keys; test: with test keys (docs/sandbox.md)',
  })),
  cursor: Type.Optional(Type.String({ pattern: CURSOR, errorMessage: 'must be the next_cursor of a previous page', description: 'next_cursor of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, errorMessage: `must be a whole number from 1 to ${MAX_PAGE_SIZE}` })),
});
export type MessageListQuery = Static<typeof MessageListQuery>;

export interface MessageQuery {
  readonly status?: MessageStatus;
  readonly channel?: Channel;
  readonly since?: number;
  /** Created before (epoch ms). */
  readonly until?: number;
  readonly recipient?: string;
  readonly mode?: KeyMode;
  readonly cursor?: MessageCursor;
  readonly limit: number;
}

/** Where the next page starts: after this message, in (created_at, id) order; `createdAt` unknown for an old bare-msgid cursor. */
export interface MessageCursor {
  readonly createdAt?: number;
  readonly id: string;
}

export function encodeMessageCursor(cursor: Required<MessageCursor>): string {
  return `${cursor.createdAt}_${cursor.id}`;
}

function decodeMessageCursor(text: string): MessageCursor {
  const at = text.indexOf('_');
  return at === -1 ? { id: text } : { createdAt: Number(text.slice(0, at)), id: text.slice(at + 1) };
}

/** The checked query in the store's terms: `since` as epoch milliseconds, the recipient trimmed. */
export function refineMessageQuery(query: MessageListQuery): Result<MessageQuery> {
  const { since, until, recipient, limit, cursor, ...rest } = query;
  const result: { -readonly [K in keyof MessageQuery]: MessageQuery[K] } = { ...rest, limit: limit ?? DEFAULT_PAGE_SIZE };
  for (const [bound, value] of [['since', since], ['until', until]] as const) {
    if (value === undefined) continue;
    const at = /^[0-9]+$/.test(value) ? Number(value) : Date.parse(value);
    if (!Number.isSafeInteger(at)) return reject('invalidField', { detail: `${bound} ${SINCE_PROBLEM}` });
    result[bound] = at;
  }
  if (recipient !== undefined) result.recipient = recipient.trim();
  if (cursor !== undefined) result.cursor = decodeMessageCursor(cursor);
  return ok(result);
}
