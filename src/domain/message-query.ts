import { CHANNELS, type Channel } from './account.ts';
import { ownField, type JsonObject } from './json-object.ts';
import { isMessageStatus, type MessageStatus } from './message-status.ts';
import { ok, reject, type Result } from './result.ts';

// GET /v1/messages?status=&channel=&since=&until=&recipient=&cursor=&limit= — the query,
// validated. A cursor is the last msgid of the previous page, opaque to clients.

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

export interface MessageQuery {
  readonly status?: MessageStatus;
  readonly channel?: Channel;
  readonly since?: number;
  /** Created before (epoch ms). */
  readonly until?: number;
  readonly recipient?: string;
  readonly cursor?: string;
  readonly limit: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const invalid = (detail: string) => reject('invalidField', { detail });

export function parseMessageQuery(raw: unknown): Result<MessageQuery> {
  // Fastify's query parser gives an object of its own class, not a plain one.
  const query: JsonObject = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as JsonObject) : {};
  const text = (key: string): string | undefined | null => {
    const value = ownField(query, key);
    if (value === undefined || value === '') return undefined;
    return typeof value === 'string' ? value : null; // repeated parameters arrive as arrays
  };
  const result: { -readonly [K in keyof MessageQuery]: MessageQuery[K] } = { limit: DEFAULT_PAGE_SIZE };

  const status = text('status');
  if (status === null || (status !== undefined && !isMessageStatus(status))) return invalid('status must be one of queued, sending, deferred, sent, delivered, failed, bounced, dropped');
  if (status !== undefined) result.status = status;

  const channel = text('channel');
  if (channel === null || (channel !== undefined && !(CHANNELS as readonly string[]).includes(channel))) return invalid('channel must be email, sms or whatsapp');
  if (channel !== undefined) result.channel = channel as Channel;

  for (const bound of ['since', 'until'] as const) {
    const value = text(bound);
    if (value === null) return invalid(`${bound} must be an ISO 8601 time or epoch milliseconds`);
    if (value !== undefined) {
      const at = /^[0-9]+$/.test(value) ? Number(value) : Date.parse(value);
      if (!Number.isSafeInteger(at)) return invalid(`${bound} must be an ISO 8601 time or epoch milliseconds`);
      result[bound] = at;
    }
  }

  const recipient = text('recipient');
  if (recipient === null || (recipient !== undefined && recipient.length > 320)) return invalid('recipient must be one address or number');
  if (recipient !== undefined) result.recipient = recipient.trim();

  const cursor = text('cursor');
  if (cursor === null || (cursor !== undefined && !UUID.test(cursor))) return invalid('cursor must be the next_cursor of a previous page');
  if (cursor !== undefined) result.cursor = cursor;

  const limit = text('limit');
  if (limit === null || (limit !== undefined && !/^[0-9]{1,4}$/.test(limit))) return invalid(`limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  if (limit !== undefined) {
    const n = Number(limit);
    if (n < 1 || n > MAX_PAGE_SIZE) return invalid(`limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
    result.limit = n;
  }
  return ok(result);
}
