import { Type, type Static } from '@sinclair/typebox';
import { CHANNELS, type Channel } from './account.ts';
import { KEY_MODES, type KeyMode } from './key-mode.ts';
import { MESSAGE_STATUSES, type MessageStatus } from './message-status.ts';
import { SEARCH_SCAN_MAX, SEARCH_WINDOW_DAYS, TOTAL_CAP } from './message-search.ts';
import { ok, reject, type Result } from './result.ts';

export { SEARCH_SCAN_MAX, SEARCH_WINDOW_DAYS, TOTAL_CAP };

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
  recipient_prefix: Type.Optional(Type.String({ minLength: 1, maxLength: 320, errorMessage: 'must be 1 to 320 characters', description: 'Recipients that start with this text (case as stored)' })),
  subject: Type.Optional(Type.String({ minLength: 1, maxLength: 200, errorMessage: 'must be 1 to 200 characters', description: `Email subjects containing this text, ignoring case; within ${SEARCH_WINDOW_DAYS} days (since defaults to ${SEARCH_WINDOW_DAYS} days before until)` })),
  metadata_key: Type.Optional(Type.String({ minLength: 1, maxLength: 100, errorMessage: 'must be 1 to 100 characters', description: 'With metadata_value: sends whose metadata holds that text at this top-level key; within the same window as subject' })),
  metadata_value: Type.Optional(Type.String({ maxLength: 500, errorMessage: 'must be at most 500 characters', description: 'The text metadata_key must hold' })),
  campaign_id: Type.Optional(Type.String({ pattern: `^${UUID}$`, errorMessage: 'must be a campaign id', description: 'Messages of this campaign' })),
  tag: Type.Optional(Type.String({ minLength: 1, maxLength: 200, errorMessage: 'must be 1 to 200 characters', description: 'Sends that carried this `campaign` field; within the same window as subject' })),
  include_total: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], { errorMessage: 'must be true or false', description: `true: the answer says how many messages match (total, at most ${TOTAL_CAP.toLocaleString('en')}; total_capped when there are more)` })),
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
  readonly recipientPrefix?: string;
  readonly subject?: string;
  readonly metadata?: { readonly key: string; readonly value: string };
  readonly campaignId?: string;
  readonly tag?: string;
  readonly includeTotal: boolean;
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

const DAY_MS = 24 * 3600 * 1000;

/**
 * The checked query in the store's terms: `since` as epoch milliseconds, the recipient
 * trimmed. A subject, metadata or tag search looks at SEARCH_WINDOW_DAYS at most: `since`
 * defaults to that long before `until` (or `now`), and a longer window is refused.
 */
export function refineMessageQuery(query: MessageListQuery, now: number): Result<MessageQuery> {
  const {
    since, until, recipient, limit, cursor, recipient_prefix: recipientPrefix, subject, metadata_key: metadataKey, metadata_value: metadataValue,
    campaign_id: campaignId, tag, include_total: includeTotal, ...rest
  } = query;
  const result: { -readonly [K in keyof MessageQuery]: MessageQuery[K] } = { ...rest, limit: limit ?? DEFAULT_PAGE_SIZE, includeTotal: includeTotal === 'true' };
  for (const [bound, value] of [['since', since], ['until', until]] as const) {
    if (value === undefined) continue;
    const at = /^[0-9]+$/.test(value) ? Number(value) : Date.parse(value);
    if (!Number.isSafeInteger(at)) return reject('invalidField', { detail: `${bound} ${SINCE_PROBLEM}` });
    result[bound] = at;
  }
  if (recipient !== undefined) result.recipient = recipient.trim();
  if (recipientPrefix !== undefined) result.recipientPrefix = recipientPrefix.trim();
  if (cursor !== undefined) result.cursor = decodeMessageCursor(cursor);
  if (campaignId !== undefined) result.campaignId = campaignId;
  if (subject !== undefined) result.subject = subject;
  if (tag !== undefined) result.tag = tag;
  if ((metadataKey === undefined) !== (metadataValue === undefined)) return reject('invalidField', { detail: 'metadata_key and metadata_value go together' });
  if (metadataKey !== undefined && metadataValue !== undefined) result.metadata = { key: metadataKey, value: metadataValue };
  if (subject !== undefined || tag !== undefined || metadataKey !== undefined) {
    const end = result.until ?? now;
    result.since ??= end - SEARCH_WINDOW_DAYS * DAY_MS;
    if (end - result.since > SEARCH_WINDOW_DAYS * DAY_MS) {
      return reject('invalidField', { detail: `since: a subject, metadata or tag search looks at ${SEARCH_WINDOW_DAYS} days at most` });
    }
  }
  return ok(result);
}
