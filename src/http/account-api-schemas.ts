// The JSON shapes of the account web application's API (issue 12), declared once as
// TypeBox schemas: the server documents (OpenAPI) and validates request bodies with
// them, and web/ imports the derived types (`import type { Session } from
// '../../src/http/account-api-schemas.ts'`). This file imports nothing but TypeBox and
// the pure domain/user.ts and domain/account.ts, so the front end's type check needs little else of the server.
//
// Wire conventions, as on the rest of /v1: snake_case fields, UTC ISO-8601 times,
// money as JSON numbers (4 decimals at most), errors `{"message": …}` with `detail`
// ("<field path>: <what is wrong>") on herald's own invalid-field errors.
//
// Links sent by email carry their one-time token in the URL fragment, which browsers
// never send to a server (so no access log or Referer ever holds it); the page then
// sends it in a JSON body, never in a URL, for the same reason:
//   invitation:      <HERALD_PUBLIC_URL>/app/invitation#<token>     → POST /v1/auth/invitation {token}, then …/invitation/accept
//   password reset:  <HERALD_PUBLIC_URL>/app/password-reset#<token> → POST /v1/auth/password-reset/complete {token, password}
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ALLOW_LIST_APPLIES_TO } from '../domain/account.ts';
import { INVITATION_PAGE, PASSWORD_RESET_PAGE } from '../domain/user.ts';

/** Where the front end's pages for the emailed links live (declared with the users, in domain/). */
export { INVITATION_PAGE, PASSWORD_RESET_PAGE };

/** The session cookie of account users, and the operator console's. */
export const SESSION_COOKIE = 'herald_session';
export const ADMIN_SESSION_COOKIE = 'herald_admin_session';
/** The header that carries the session's csrf_token on POST, PUT, PATCH and DELETE. */
export const CSRF_HEADER = 'x-csrf-token';

/** Password length rule, in characters (code points). */
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

const Timestamp = (description = 'UTC, ISO-8601') => Type.String({ format: 'date-time', description });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Id = (description: string) => Type.String({ format: 'uuid', description });

// ---- errors ----

export const ErrorBody = Type.Object({
  message: Type.String(),
  detail: Type.Optional(Type.String({ description: '`<field path>: <what is wrong>`, e.g. `ip_allow_list[2]: must be an IPv4 or IPv6 address or CIDR range`' })),
});
export type ErrorBody = Static<typeof ErrorBody>;

/** 401 of sign-in when the user has a second factor and gave no code. */
export const TotpRequiredError = Type.Object({ message: Type.Literal('Two-factor code required'), totp_required: Type.Literal(true) });
export type TotpRequiredError = Static<typeof TotpRequiredError>;

// ---- users and sessions ----

export const USER_ROLES = ['owner', 'developer', 'viewer'] as const;
export const UserRole = Type.Union(USER_ROLES.map((role) => Type.Literal(role)), {
  description: 'viewer: reads; developer: reads and writes; owner: everything, users and the IP allow-list included',
});
export type UserRole = Static<typeof UserRole>;

export const SessionUser = Type.Object({
  user_id: Id('The user'),
  email: Type.String({ format: 'email' }),
  role: UserRole,
  totp_enabled: Type.Boolean(),
});
export type SessionUser = Static<typeof SessionUser>;

/** What sign-in, accepting an invitation, a password reset and GET /v1/session answer. */
export const Session = Type.Object({
  user: SessionUser,
  account: Type.Object({ account_id: Id('The account'), name: Type.String() }),
  csrf_token: Type.String({ description: 'Send as `X-CSRF-Token` on every POST, PUT, PATCH and DELETE of this session' }),
  expires_at: Timestamp('The session\'s absolute end; it ends earlier after HERALD_SESSION_IDLE_MINUTES without a request'),
});
export type Session = Static<typeof Session>;

export const SignInRequest = Type.Object({
  email: Type.String({ maxLength: 320 }),
  password: Type.String({ maxLength: PASSWORD_MAX * 4 }),
  totp_code: Type.Optional(Type.String({ maxLength: 16, description: 'The 6-digit code, when the user has a second factor' })),
}, { additionalProperties: false });
export type SignInRequest = Static<typeof SignInRequest>;

export const InvitationView = Type.Object({
  email: Type.String({ format: 'email' }),
  account_name: Type.String(),
  role: UserRole,
  expires_at: Timestamp(),
});
export type InvitationView = Static<typeof InvitationView>;

const LinkToken = Type.String({ maxLength: 200, description: 'The token after the `#` of the emailed link' });

/** POST /v1/auth/invitation: what an invitation link is for. */
export const InvitationRequest = Type.Object({ token: LinkToken }, { additionalProperties: false });
export type InvitationRequest = Static<typeof InvitationRequest>;

/** POST /v1/auth/invitation/accept and /v1/auth/password-reset/complete: the link's token and the password to set. */
export const NewPasswordRequest = Type.Object({
  token: LinkToken,
  password: Type.String({ maxLength: PASSWORD_MAX * 4, description: `${PASSWORD_MIN} to ${PASSWORD_MAX} characters` }),
}, { additionalProperties: false });
export type NewPasswordRequest = Static<typeof NewPasswordRequest>;

export const PasswordResetRequest = Type.Object({ email: Type.String({ maxLength: 320 }) }, { additionalProperties: false });
export type PasswordResetRequest = Static<typeof PasswordResetRequest>;

/** 202 of POST /v1/auth/password-reset, the same whether or not the address has a user. */
export const PasswordResetAnswer = Type.Object({
  message: Type.String(),
  email_enabled: Type.Boolean({
    description: 'Whether herald has a sender for its own emails (HERALD_AUTH_EMAIL_FROM). false: no reset link is or will be emailed, whatever the address; the message says so',
  }),
});
export type PasswordResetAnswer = Static<typeof PasswordResetAnswer>;

export const ChangePasswordRequest = Type.Object({
  current_password: Type.String({ maxLength: PASSWORD_MAX * 4 }),
  new_password: Type.String({ maxLength: PASSWORD_MAX * 4, description: `${PASSWORD_MIN} to ${PASSWORD_MAX} characters` }),
}, { additionalProperties: false });
export type ChangePasswordRequest = Static<typeof ChangePasswordRequest>;

export const TotpSetup = Type.Object({
  secret: Type.String({ description: 'Base32; pending until POST /v1/me/totp/confirm' }),
  otpauth_url: Type.String({ description: '`otpauth://totp/…` for a QR code (SHA1, 6 digits, 30 s)' }),
});
export type TotpSetup = Static<typeof TotpSetup>;

export const TotpCodeRequest = Type.Object({ code: Type.String({ maxLength: 16 }) }, { additionalProperties: false });
export type TotpCodeRequest = Static<typeof TotpCodeRequest>;

// ---- users of the account (owner) ----

export const UserView = Type.Object({
  user_id: Id('The user'),
  email: Type.String({ format: 'email' }),
  role: UserRole,
  status: Type.Union([Type.Literal('invited'), Type.Literal('active')], { description: 'invited: has not set a password yet' }),
  totp_enabled: Type.Boolean(),
  created_at: Timestamp(),
  last_sign_in_at: Nullable(Timestamp()),
  active_sessions: Type.Integer({ minimum: 0, description: 'Sessions not yet ended or expired' }),
});
export type UserView = Static<typeof UserView>;

export const UserList = Type.Object({ users: Type.Array(UserView) });
export type UserList = Static<typeof UserList>;

export const NewUserRequest = Type.Object({ email: Type.String({ maxLength: 320 }), role: UserRole }, { additionalProperties: false });
export type NewUserRequest = Static<typeof NewUserRequest>;

/** A user just invited (or invited again): the one-time link is in this answer only. */
export const InvitedUser = Type.Object({
  user_id: Id('The user'),
  email: Type.String({ format: 'email' }),
  role: UserRole,
  status: Type.Literal('invited'),
  invitation_url: Type.String({ description: `<public URL>${INVITATION_PAGE}#<token>; one use; shown here once` }),
  invitation_expires_at: Timestamp(),
  email_sent: Type.Boolean({ description: 'Whether the link was emailed to the user. false: herald has no sender (HERALD_AUTH_EMAIL_FROM unset): hand them the link yourself' }),
});
export type InvitedUser = Static<typeof InvitedUser>;

export const RoleChangeRequest = Type.Object({ role: UserRole }, { additionalProperties: false });
export type RoleChangeRequest = Static<typeof RoleChangeRequest>;

// ---- the account ----

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
});
export type AccountView = Static<typeof AccountView>;

/**
 * PATCH /v1/account. A session's change that leaves a list binding sessions without the
 * saver's own address is refused (409 `The IP allow-list would lock you out`): add the
 * address, or set `allow_list_applies_to` to `keys`.
 */
export const IpAllowListRequest = Type.Object({
  ip_allow_list: Type.Optional(Type.Array(Type.String(), { maxItems: 1000, description: 'IPv4, IPv6 or CIDR entries; empty: any address' })),
  allow_list_applies_to: Type.Optional(AllowListAppliesTo),
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

export const LEDGER_KINDS = ['email.send', 'email.confirmation', 'sms.send', 'whatsapp.send', 'refund', 'account.open', 'admin.set', 'admin.top-up'] as const;
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
  cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
});
export type LedgerQuery = Static<typeof LedgerQuery>;

// ---- API keys ----

export const KEY_SCOPES = ['email', 'sms', 'whatsapp', 'webhooks', 'account'] as const;
export const KeyScope = Type.Union(KEY_SCOPES.map((scope) => Type.Literal(scope)), {
  description: 'email, sms, whatsapp: send and read on the channel; webhooks: the webhook settings and log; account: keys, users, usage, ledger, allow-list',
});
export type KeyScope = Static<typeof KeyScope>;

export const KeyModeField = Type.Union([Type.Literal('live'), Type.Literal('test')], {
  description: 'live, or test: a test key (it starts `test_`) sends through the capture transports whatever is configured, is never billed, and its messages are listed with `GET /v1/messages?mode=test` (docs/sandbox.md)',
});

export const ApiKeyView = Type.Object({
  key_id: Id('The key'),
  name: Type.String(),
  scopes: Type.Array(KeyScope),
  created_at: Timestamp(),
  expires_at: Nullable(Timestamp()),
  last_used_at: Nullable(Timestamp('Recorded at most once a minute')),
  last_used_ip: Nullable(Type.String()),
  revoked_at: Nullable(Timestamp()),
  mode: KeyModeField,
});
export type ApiKeyView = Static<typeof ApiKeyView>;

export const ApiKeyList = Type.Object({ api_keys: Type.Array(ApiKeyView, { description: 'Oldest first, revoked keys included' }) });
export type ApiKeyList = Static<typeof ApiKeyList>;

export const NewApiKeyRequest = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  scopes: Type.Array(KeyScope, { minItems: 1 }),
  expires_at: Type.Optional(Nullable(Timestamp('In the future; absent or null: never'))),
  mode: Type.Optional(KeyModeField),
}, { additionalProperties: false });
export type NewApiKeyRequest = Static<typeof NewApiKeyRequest>;

export const IssuedApiKey = Type.Object({
  key_id: Id('The key'),
  api_key: Type.String({ description: 'Shown this once; only its hash is stored' }),
  name: Type.String(),
  scopes: Type.Array(KeyScope),
  created_at: Timestamp(),
  expires_at: Nullable(Timestamp()),
  mode: KeyModeField,
});
export type IssuedApiKey = Static<typeof IssuedApiKey>;

// ---- templates ----

export const RenderRequest = Type.Object({
  template_id: Type.Optional(Type.String({ description: 'A stored template; html and text below replace its own when given' })),
  subject: Type.Optional(Type.String()),
  html: Type.Optional(Type.String()),
  text: Type.Optional(Type.String()),
  variables: Type.Optional(Type.Record(Type.String(), Type.String())),
}, { additionalProperties: false });
export type RenderRequest = Static<typeof RenderRequest>;

export const RenderedEmail = Type.Object({
  subject: Type.String(),
  html: Nullable(Type.String()),
  text: Type.String({ description: 'The text part as sent: the template\'s own, or the one generated from the HTML' }),
});
export type RenderedEmail = Static<typeof RenderedEmail>;

// ---- webhooks (additions to /v1/webhooks) ----

export const RetryFailedRequest = Type.Object({
  since: Type.Union([Type.String(), Type.Integer()], { description: 'Failed deliveries created at or after: ISO-8601 time or epoch milliseconds' }),
}, { additionalProperties: false });
export type RetryFailedRequest = Static<typeof RetryFailedRequest>;

export const RetryFailedResult = Type.Object({
  retried: Type.Integer({ minimum: 0, description: 'Deliveries put back to `pending`, due now (at most 10,000 a request; ask again for more)' }),
});
export type RetryFailedResult = Static<typeof RetryFailedResult>;

// ---- messages (additions to GET /v1/messages) ----

/** The query of GET /v1/messages as the log page uses it (`until` is this addition). */
export const MessageLogQuery = Type.Object({
  status: Type.Optional(Type.String()),
  channel: Type.Optional(Type.Union([Type.Literal('email'), Type.Literal('sms'), Type.Literal('whatsapp')])),
  recipient: Type.Optional(Type.String({ description: 'Exact address or number' })),
  since: Type.Optional(Type.String({ description: 'Created at or after: ISO-8601 or epoch ms' })),
  until: Type.Optional(Type.String({ description: 'Created before: ISO-8601 or epoch ms' })),
  cursor: Type.Optional(Type.String()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
});
export type MessageLogQuery = Static<typeof MessageLogQuery>;

/** Content-Security-Policy of GET /v1/messages/:msgid/preview (the sandboxed iframe's document). */
export const PREVIEW_CSP = 'default-src \'none\'; img-src data:; style-src \'unsafe-inline\'; frame-ancestors \'self\'; sandbox';

