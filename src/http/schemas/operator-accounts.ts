// The operator console's accounts (/admin/v1/accounts): the admin API predates the
// account API and keeps its camelCase fields (docs/api.md "Field names"); what it reports
// on the service (service-health.ts) and the list's cursor are snake_case.
import { Type, type Static } from '@sinclair/typebox';
import { AllowListAppliesTo, Services } from './account.ts';
import { Nullable, Timestamp } from './common.ts';

/** An account as the admin API shows it (GET /admin/v1/accounts/:id adds apiKeys and domains). */
export const AdminAccount = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  active: Type.Boolean(),
  messagesLeft: Type.Integer({ minimum: 0 }),
  balance: Type.Number({ minimum: 0 }),
  whatsappPrice: Type.Number({ minimum: 0 }),
  rateLimitPerSecond: Type.Integer({ minimum: 1 }),
  ipAllowList: Type.Array(Type.String()),
  allowListAppliesTo: AllowListAppliesTo,
  services: Services,
  webhookUrl: Nullable(Type.String()),
  webhookSecret: Type.Optional(Nullable(Type.String())),
  webhookEvents: Type.Optional(Nullable(Type.Array(Type.String()))),
  tracking: Type.Object({ opens: Type.Boolean(), clicks: Type.Boolean() }),
  whatsappPhoneNumberId: Nullable(Type.String()),
  whatsappAccessToken: Nullable(Type.Literal('set')),
  createdAt: Timestamp(),
  updatedAt: Timestamp(),
});
export type AdminAccount = Static<typeof AdminAccount>;

/** One row of the console's account list. */
export const AccountSummary = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  active: Type.Boolean(),
  messagesLeft: Type.Integer({ minimum: 0 }),
  balance: Type.Number({ minimum: 0 }),
  services: Services,
  users: Type.Integer({ minimum: 0, description: 'Users of the account, invited ones included' }),
  createdAt: Timestamp(),
});
export type AccountSummary = Static<typeof AccountSummary>;

export const AccountListQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 200, description: 'Part of the name (case-insensitive), or an exact account id' })),
  cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
});
export type AccountListQuery = Static<typeof AccountListQuery>;

export const AccountList = Type.Object({
  accounts: Type.Array(AccountSummary, { description: 'Newest first' }),
  next_cursor: Nullable(Type.String()),
});
export type AccountList = Static<typeof AccountList>;

// ---- top-ups and the ledger ----

export const TopUpRequest = Type.Object({
  messages: Type.Optional(Type.Integer({ description: 'Messages to add; negative to remove' })),
  balance: Type.Optional(Type.Union([Type.Number(), Type.String()], { description: 'Money to add (number or decimal string, 4 decimals at most); negative to remove' })),
  reason: Type.String({ minLength: 1, maxLength: 500, description: 'Why; kept in the ledger and shown to the account' }),
}, { additionalProperties: false });
export type TopUpRequest = Static<typeof TopUpRequest>;

/** A ledger entry as the admin API shows it; `reason` is its kind, `note` the operator's words. */
export const AdminLedgerEntry = Type.Object({
  id: Type.String({ format: 'uuid' }),
  at: Timestamp(),
  messagesDelta: Type.Integer(),
  balanceDelta: Type.Number(),
  reason: Type.String({ description: 'email.send, sms.send, whatsapp.send, refund, account.open, admin.set, admin.top-up' }),
  sendId: Nullable(Type.String()),
  note: Nullable(Type.String()),
});
export type AdminLedgerEntry = Static<typeof AdminLedgerEntry>;
