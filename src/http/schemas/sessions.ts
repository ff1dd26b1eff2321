// Sign-in, sessions, invitations, password resets and second factors of account users
// (/v1/auth, /v1/me, /v1/session), and the operator console's session (/admin/v1/session).
//
// Links sent by email carry their one-time token in the URL fragment, which browsers
// never send to a server (so no access log or Referer ever holds it); the page then
// sends it in a JSON body, never in a URL, for the same reason:
//   invitation:      <HERALD_PUBLIC_URL>/app/invitation#<token>     → POST /v1/auth/invitation {token}, then …/invitation/accept
//   password reset:  <HERALD_PUBLIC_URL>/app/password-reset#<token> → POST /v1/auth/password-reset/complete {token, password}
import { Type, type Static } from '@sinclair/typebox';
import { INVITATION_PAGE, PASSWORD_RESET_PAGE } from '../../domain/user.ts';
import { Id, Timestamp } from './common.ts';
import { UserRole } from './users.ts';

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

/** 401 of sign-in when the user has a second factor and gave no code. */
export const TotpRequiredError = Type.Object({ message: Type.Literal('Two-factor code required'), totp_required: Type.Literal(true) });
export type TotpRequiredError = Static<typeof TotpRequiredError>;

/** The user's chosen language; null: none chosen (the browser's is used). */
const UserLocale = Type.Union([Type.Literal('en'), Type.Literal('es'), Type.Null()], { description: 'The language the user chose (`en` or `es`); null: none, the browser\'s is used, and herald\'s emails are in English' });

/** PATCH /v1/me: the user's own settings. */
export const MeChange = Type.Object({ locale: UserLocale }, { additionalProperties: false });
export type MeChange = Static<typeof MeChange>;

export const SessionUser = Type.Object({
  user_id: Id('The user'),
  email: Type.String({ format: 'email' }),
  role: UserRole,
  totp_enabled: Type.Boolean(),
  locale: UserLocale,
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

// ---- the operator console's session ----

export const OperatorSignInRequest = Type.Object({ token: Type.String({ maxLength: 1024, description: 'HERALD_ADMIN_TOKEN' }) }, { additionalProperties: false });
export type OperatorSignInRequest = Static<typeof OperatorSignInRequest>;

/** POST and GET /admin/v1/session; the cookie `herald_admin_session` carries the session. */
export const OperatorSession = Type.Object({
  csrf_token: Type.String({ description: 'Send as `X-CSRF-Token` on every POST, PUT, PATCH and DELETE made with the cookie' }),
  expires_at: Timestamp('The session\'s absolute end'),
});
export type OperatorSession = Static<typeof OperatorSession>;
