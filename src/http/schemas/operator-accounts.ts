// The operator console's accounts (/admin/v1/accounts): the admin API predates the
// account API and keeps its camelCase fields (docs/api.md "Field names"); what it reports
// on the service (service-health.ts) and the list's cursor are snake_case.
import { Type, type Static } from '@sinclair/typebox';
import { AllowListAppliesTo, LedgerKind, Services } from './account.ts';
import { KeyModeField, KeyScope } from './api-keys.ts';
import { Nullable, pageQueryFields, Timestamp } from './common.ts';
import { TOP_UP_REASON_MAX } from '../../domain/text-limits.ts';

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
  webhookSecret: Type.Optional(Nullable(Type.String({ description: 'Standard Webhooks signing secret (`whsec_…`); the account rotates it with POST /v1/webhooks/secret/rotate' }))),
  webhookEvents: Type.Optional(Nullable(Type.Array(Type.String(), { description: 'The event types posted; null: every type' }))),
  tracking: Type.Object({ opens: Type.Boolean(), clicks: Type.Boolean() }),
  whatsappPhoneNumberId: Nullable(Type.String()),
  whatsappAccessToken: Nullable(Type.Literal('set')),
  whatsappBusinessAccountId: Nullable(Type.String()),
  smsSenders: Type.Array(Type.String(), { description: 'The SMS senders, the first the default (a send names another with `from`); empty: the transport\'s own sender' }),
  createdAt: Timestamp(),
  updatedAt: Timestamp(),
});
export type AdminAccount = Static<typeof AdminAccount>;

/** A key as the operator sees it the one time it exists in clear (POST /admin/v1/accounts/:id/api-keys). */
export const AdminIssuedKey = Type.Object({
  id: Type.String({ format: 'uuid' }),
  apiKey: Type.String({ description: 'Shown this once; only its hash is stored' }),
  scopes: Type.Array(KeyScope),
  expiresAt: Nullable(Timestamp()),
  mode: KeyModeField,
});
export type AdminIssuedKey = Static<typeof AdminIssuedKey>;

/** POST /admin/v1/accounts: the account and its first key, of every scope. */
export const NewAccountAnswer = Type.Object({ account: AdminAccount, apiKey: Type.Pick(AdminIssuedKey, ['id', 'apiKey', 'scopes']) });
export type NewAccountAnswer = Static<typeof NewAccountAnswer>;

/** GET /admin/v1/accounts/:id: the account, its keys (never their material) and its sender domains. */
export const AdminAccountDetails = Type.Composite([AdminAccount, Type.Object({
  apiKeys: Type.Array(Type.Object({
    id: Type.String({ format: 'uuid' }), name: Type.String({ description: 'What the account calls it; empty for none' }), scopes: Type.Array(KeyScope), createdAt: Timestamp(), expiresAt: Nullable(Timestamp()), revokedAt: Nullable(Timestamp()), mode: KeyModeField,
  })),
  domains: Type.Array(Type.Object({ domain: Type.String(), verified: Type.Boolean() })),
})]);
export type AdminAccountDetails = Static<typeof AdminAccountDetails>;

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
  ...pageQueryFields(200),
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
  reason: Type.String({ minLength: 1, maxLength: TOP_UP_REASON_MAX, description: 'Why; kept in the ledger and shown to the account' }),
}, { additionalProperties: false });
export type TopUpRequest = Static<typeof TopUpRequest>;

/** A ledger entry as the admin API shows it; `reason` is its kind, `note` the operator's words. */
export const AdminLedgerEntry = Type.Object({
  id: Type.String({ format: 'uuid' }),
  at: Timestamp(),
  messagesDelta: Type.Integer(),
  balanceDelta: Type.Number(),
  reason: LedgerKind,
  sendId: Nullable(Type.String({ description: 'The accepted request that caused it, for sends' })),
  note: Nullable(Type.String({ description: 'The operator\'s reason, for a top-up made with one (POST …/top-ups)' })),
});
export type AdminLedgerEntry = Static<typeof AdminLedgerEntry>;

/** GET /admin/v1/accounts/:id/ledger: oldest first. */
export const AdminLedger = Type.Object({ entries: Type.Array(AdminLedgerEntry) });
export type AdminLedger = Static<typeof AdminLedger>;
