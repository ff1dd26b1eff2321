import { Type, type Static } from '@sinclair/typebox';
import { CHANNELS, type Channel } from './account.ts';
import { parseTimeBound } from './account-input.ts';
import { ok, type Result } from './result.ts';

// GET /v1/inbound?channel=&from=&to=&since=&until=&cursor=&limit= — declared once, checked by
// the route before its handler; the cursor is the last id of the previous page (UUIDv7, newest first).

export const DEFAULT_INBOUND_PAGE = 50;
export const MAX_INBOUND_PAGE = 500;
const UUID = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
const TIME = 'must be an ISO-8601 time or epoch milliseconds';

export const InboundListQuery = Type.Object({
  channel: Type.Optional(Type.Union(CHANNELS.map((c) => Type.Literal(c)), { errorMessage: 'must be email, sms or whatsapp' })),
  from: Type.Optional(Type.String({ maxLength: 320, errorMessage: 'must be one address or number', description: 'Exact sender: `+` and digits, or an email address' })),
  to: Type.Optional(Type.String({ maxLength: 320, errorMessage: 'must be one address, number or phone number id', description: 'Exact receiver: the account\'s SMS sender, WhatsApp phone number id or receiving address' })),
  since: Type.Optional(Type.String({ maxLength: 40, errorMessage: TIME, description: 'Received at or after: ISO 8601 time or epoch milliseconds' })),
  until: Type.Optional(Type.String({ maxLength: 40, errorMessage: TIME, description: 'Received at or before: ISO 8601 time or epoch milliseconds' })),
  cursor: Type.Optional(Type.String({ pattern: UUID, errorMessage: 'must be the next_cursor of a previous page', description: 'next_cursor of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_INBOUND_PAGE, default: DEFAULT_INBOUND_PAGE, errorMessage: `must be a whole number from 1 to ${MAX_INBOUND_PAGE}` })),
});
export type InboundListQuery = Static<typeof InboundListQuery>;

export interface InboundQuery {
  readonly channel?: Channel | undefined;
  readonly from?: string | undefined;
  readonly to?: string | undefined;
  readonly since?: number | undefined;
  readonly until?: number | undefined;
  readonly before?: string | undefined;
  readonly limit: number;
}

/** The checked query in the store's terms; addresses compared as stored (emails lower-cased). */
export function refineInboundQuery(query: InboundListQuery): Result<InboundQuery> {
  const since = parseTimeBound(query.since, 'since');
  if (!since.ok) return since;
  const until = parseTimeBound(query.until, 'until');
  if (!until.ok) return until;
  const address = (value: string | undefined) => (value === undefined ? undefined : value.includes('@') ? value.trim().toLowerCase() : value.trim());
  return ok({
    channel: query.channel, from: address(query.from), to: address(query.to), since: since.value, until: until.value,
    before: query.cursor, limit: query.limit ?? DEFAULT_INBOUND_PAGE,
  });
}
