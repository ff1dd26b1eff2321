// The account's own state (/v1/account), its usage (/v1/usage) and its ledger (/v1/ledger).
//
// Wire conventions, as on the rest of /v1 (docs/api.md "Field names"): snake_case fields,
// UTC ISO-8601 times, money as JSON numbers (4 decimals at most), errors `{"message": …}`
// with `detail` ("<field path>: <what is wrong>") on herald's own invalid-field errors.
import { Type, type Static } from '@sinclair/typebox';
import { ALLOW_LIST_APPLIES_TO } from '../../domain/account.ts';
import { ALLOW_LIST_MAX } from '../../domain/account-input.ts';
import { Id, Nullable, pageQueryFields, Timestamp } from './common.ts';

export const Services = Type.Object({ email: Type.Boolean(), sms: Type.Boolean(), whatsapp: Type.Boolean() });
export type Services = Static<typeof Services>;

export const AllowListAppliesTo = Type.Union(ALLOW_LIST_APPLIES_TO.map((v) => Type.Literal(v)), {
  description: 'Whom the IP allow-list binds: `all` (the default), API keys and the web application\'s sessions; `keys`, API keys only, so people sign in from anywhere (docs/users-and-sessions.md)',
});

export const AccountView = Type.Object({
  account_id: Id('The account'),
  name: Type.String(),
  active: Type.Boolean({ description: 'false: every send is refused with `current service is not active`' }),
  messages_left: Type.Integer({ minimum: 0, description: 'Prepaid email and SMS messages' }),
  balance: Type.Number({ minimum: 0, description: 'Money for WhatsApp messages' }),
  whatsapp_price: Type.Number({ minimum: 0, description: 'Price of one WhatsApp message' }),
  rate_limit_per_second: Type.Integer({ minimum: 1 }),
  services: Services,
  ip_allow_list: Type.Array(Type.String(), { description: 'IPv4/IPv6 addresses and CIDR ranges (canonical form); empty: any address. Binds API keys, and sessions too when `allow_list_applies_to` is `all`' }),
  allow_list_applies_to: AllowListAppliesTo,
  caller_ip: Type.String({ description: 'The address herald sees this request come from: a list without it would shut this caller out' }),
  sms_senders: Type.Array(Type.String(), {
    description: 'The SMS senders the operator gave the account, the first the default; a send names another with `from`. Empty: the service\'s own sender (docs/sms-senders.md)',
  }),
});
export type AccountView = Static<typeof AccountView>;

/**
 * PATCH /v1/account, checked by Fastify and worded `<field>: <problem>` as it always was
 * (input-validation.ts); domain/account-input.ts refineAccountChange stores the entries in
 * canonical form. A session's change that leaves a list binding sessions without the
 * saver's own address is refused (409 `The IP allow-list would lock you out`): add the
 * address, or set `allow_list_applies_to` to `keys`.
 */
export const IpAllowListRequest = Type.Object({
  ip_allow_list: Type.Optional(Type.Array(
    Type.String({ format: 'ip-or-cidr', errorMessage: 'must be an IPv4 or IPv6 address or CIDR range', description: 'An IPv4/IPv6 address or CIDR range' }),
    { maxItems: ALLOW_LIST_MAX, errorMessage: `must be an array of at most ${ALLOW_LIST_MAX} strings`, description: 'IPv4, IPv6 or CIDR entries; empty: any address' },
  )),
  allow_list_applies_to: Type.Optional(Type.Union(ALLOW_LIST_APPLIES_TO.map((v) => Type.Literal(v)), {
    errorMessage: 'must be "keys" or "all"', description: AllowListAppliesTo.description,
  })),
}, { additionalProperties: false });
export type IpAllowListRequest = Static<typeof IpAllowListRequest>;

// ---- usage ----

export const Counts = Type.Object({
  accepted: Type.Integer({ minimum: 0, description: 'Messages accepted that day' }),
  delivered: Type.Integer({ minimum: 0, description: 'Messages that became `delivered` that day' }),
  bounced: Type.Integer({ minimum: 0 }),
  failed: Type.Integer({ minimum: 0 }),
});
export type Counts = Static<typeof Counts>;

export const UsageDay = Type.Object({
  date: Type.String({ description: 'UTC day, YYYY-MM-DD' }),
  email: Counts,
  sms: Counts,
  whatsapp: Counts,
});
export type UsageDay = Static<typeof UsageDay>;

export const UsageView = Type.Object({
  days: Type.Array(UsageDay, { description: 'Oldest first, one entry per day (zeros included), today last' }),
  today: Type.Object({ email: Type.Integer(), sms: Type.Integer(), whatsapp: Type.Integer() }, { description: 'Messages accepted today (UTC)' }),
  bounce_rate: Type.Number({ minimum: 0, maximum: 1, description: 'Email bounced / email accepted over the days; 0 without email' }),
  complaint_rate: Type.Number({ minimum: 0, maximum: 1, description: 'Email spam complaints / email accepted over the days; 0 without email' }),
});
export type UsageView = Static<typeof UsageView>;

export const UsageQuery = Type.Object({ days: Type.Optional(Type.Integer({ minimum: 1, maximum: 90, default: 30 })) });
export type UsageQuery = Static<typeof UsageQuery>;

// ---- ledger ----

export const LEDGER_KINDS = ['email.send', 'email.confirmation', 'campaign.send', 'sms.send', 'whatsapp.send', 'refund', 'account.open', 'admin.set', 'admin.top-up'] as const;
export const LedgerKind = Type.Union(LEDGER_KINDS.map((kind) => Type.Literal(kind)));
export type LedgerKind = Static<typeof LedgerKind>;

export const LedgerEntry = Type.Object({
  entry_id: Id('The entry (UUIDv7)'),
  at: Timestamp(),
  kind: LedgerKind,
  messages: Type.Integer({ description: 'Change of messages_left; negative for sends' }),
  amount: Type.Number({ description: 'Change of balance; negative for sends' }),
  reason: Nullable(Type.String({ description: 'The operator\'s words for a top-up or a set' })),
  send_id: Nullable(Type.String({ description: 'The accepted request a send or refund belongs to' })),
});
export type LedgerEntry = Static<typeof LedgerEntry>;

export const LedgerPage = Type.Object({
  entries: Type.Array(LedgerEntry, { description: 'Newest first' }),
  next_cursor: Nullable(Type.String()),
});
export type LedgerPage = Static<typeof LedgerPage>;

export const LedgerQuery = Type.Object({
  since: Type.Optional(Type.String({ description: 'At or after: ISO-8601 time or epoch milliseconds' })),
  until: Type.Optional(Type.String({ description: 'Before: ISO-8601 time or epoch milliseconds' })),
  ...pageQueryFields(500),
});
export type LedgerQuery = Static<typeof LedgerQuery>;
