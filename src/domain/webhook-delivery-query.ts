import { ownField, type JsonObject } from './json-object.ts';
import { ok, reject, type Result } from './result.ts';

// GET /v1/webhooks/deliveries?status=&msgid=&cursor=&limit= — the query, validated.
// A cursor is the last delivery id of the previous page, opaque to clients.

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const DEFAULT_DELIVERY_PAGE = 50;
export const MAX_DELIVERY_PAGE = 500;

export interface DeliveryQuery {
  readonly status?: DeliveryStatus;
  readonly msgid?: string;
  readonly cursor?: string;
  readonly limit: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const invalid = (detail: string) => reject('invalidField', { detail });

export function parseDeliveryQuery(raw: unknown): Result<DeliveryQuery> {
  // Fastify's query parser gives an object of its own class, not a plain one.
  const query: JsonObject = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as JsonObject) : {};
  const text = (key: string): string | undefined | null => {
    const value = ownField(query, key);
    if (value === undefined || value === '') return undefined;
    return typeof value === 'string' ? value : null; // repeated parameters arrive as arrays
  };
  const result: { -readonly [K in keyof DeliveryQuery]: DeliveryQuery[K] } = { limit: DEFAULT_DELIVERY_PAGE };

  const status = text('status');
  if (status === null || (status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(status))) {
    return invalid(`status must be one of ${DELIVERY_STATUSES.join(', ')}`);
  }
  if (status !== undefined) result.status = status as DeliveryStatus;

  const msgid = text('msgid');
  if (msgid === null || (msgid !== undefined && !UUID.test(msgid))) return invalid('msgid must be a message id');
  if (msgid !== undefined) result.msgid = msgid;

  const cursor = text('cursor');
  if (cursor === null || (cursor !== undefined && !UUID.test(cursor))) return invalid('cursor must be the next_cursor of a previous page');
  if (cursor !== undefined) result.cursor = cursor;

  const limit = text('limit');
  if (limit === null || (limit !== undefined && !/^[0-9]{1,4}$/.test(limit))) return invalid(`limit must be a whole number from 1 to ${MAX_DELIVERY_PAGE}`);
  if (limit !== undefined) {
    const n = Number(limit);
    if (n < 1 || n > MAX_DELIVERY_PAGE) return invalid(`limit must be a whole number from 1 to ${MAX_DELIVERY_PAGE}`);
    result.limit = n;
  }
  return ok(result);
}
