// The JSON shapes of the operator console's API (/admin/v1, issue 12), declared once as
// TypeBox schemas; web/ imports the derived types. The admin API predates the account
// API and keeps its camelCase fields (an account is `AdminAccount` below, as
// POST/GET/PATCH /admin/v1/accounts[/:id] answer it); what this issue adds is snake_case
// where it reports on the service (health) and reuses the account API's user shapes.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { AllowListAppliesTo, InvitedUser, NewUserRequest, UserList } from './account-api-schemas.ts';

const Timestamp = (description = 'UTC, ISO-8601') => Type.String({ format: 'date-time', description });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

// ---- operator session ----

export const OperatorSignInRequest = Type.Object({ token: Type.String({ maxLength: 1024, description: 'HERALD_ADMIN_TOKEN' }) }, { additionalProperties: false });
export type OperatorSignInRequest = Static<typeof OperatorSignInRequest>;

/** POST and GET /admin/v1/session; the cookie `herald_admin_session` carries the session. */
export const OperatorSession = Type.Object({
  csrf_token: Type.String({ description: 'Send as `X-CSRF-Token` on every POST, PUT, PATCH and DELETE made with the cookie' }),
  expires_at: Timestamp('The session\'s absolute end'),
});
export type OperatorSession = Static<typeof OperatorSession>;

// ---- accounts ----

export const AdminServices = Type.Object({ email: Type.Boolean(), sms: Type.Boolean(), whatsapp: Type.Boolean() });

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
  services: AdminServices,
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
  services: AdminServices,
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

// ---- users of an account ----

export const AdminUserList = UserList;
export type AdminUserList = Static<typeof AdminUserList>;
export const AdminNewUserRequest = NewUserRequest;
export type AdminNewUserRequest = Static<typeof AdminNewUserRequest>;
export const AdminInvitedUser = InvitedUser;
export type AdminInvitedUser = Static<typeof AdminInvitedUser>;

// ---- service health ----

export const ProcessView = Type.Object({
  role: Type.Union([Type.Literal('all'), Type.Literal('api'), Type.Literal('worker')]),
  pid: Type.Integer(),
  host: Type.String(),
  started_at: Timestamp(),
  last_seen_at: Timestamp('Its last heartbeat; a process beats every 5 s, so older than ~15 s means it stopped'),
});
export type ProcessView = Static<typeof ProcessView>;

export const QueueView = Type.Object({
  channel: Type.Union([Type.Literal('email'), Type.Literal('sms'), Type.Literal('whatsapp')]),
  queued: Type.Integer({ minimum: 0, description: 'Messages waiting for a delivery attempt or its retry' }),
  oldest_age_seconds: Nullable(Type.Integer({ minimum: 0, description: 'Age of the oldest of them; null when none' })),
});
export type QueueView = Static<typeof QueueView>;

export const HealthView = Type.Object({
  processes: Type.Array(ProcessView, { description: 'Processes seen in the last hour' }),
  queues: Type.Array(QueueView, { description: 'One per channel' }),
  webhook_backlog: Type.Integer({ minimum: 0, description: 'Webhook deliveries still pending' }),
  failures_last_hour: Type.Integer({ minimum: 0, description: 'Messages that failed or bounced in the last hour' }),
  delivery_held: Type.Union([
    Type.Object({
      since: Type.String({ format: 'date-time' }),
      reason: Type.String({ description: '`started with --paused`, `restored from a backup`, or the operator\'s words' }),
      release: Type.String({ description: 'The command that releases it, after review' }),
    }),
    Type.Null(),
  ], { description: 'Set while delivery is held (docs/operations.md "Backup and restore"): messages are accepted and queued, none delivered, no webhook posted' }),
});
export type HealthView = Static<typeof HealthView>;
