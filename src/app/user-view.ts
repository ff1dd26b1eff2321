import type { Account } from '../domain/account.ts';
import type { Role } from '../domain/access.ts';
import type { Locale } from '../domain/locale.ts';
import type { User } from '../domain/user.ts';
import type { Invitation, UserWithSessions } from './users.ts';

// Users and sessions as the wire shows them (snake_case, ISO times): the shapes
// http/schemas/ declares (Session, UserView, InvitedUser), which
// http/routes/users.ts checks these against at compile time; the CLI prints the same.

export interface SessionBody {
  readonly user: { readonly user_id: string; readonly email: string; readonly role: Role; readonly totp_enabled: boolean; readonly locale: Locale | null };
  readonly account: { readonly account_id: string; readonly name: string };
  readonly csrf_token: string;
  readonly expires_at: string;
}

export interface UserBody {
  readonly user_id: string;
  readonly email: string;
  readonly role: Role;
  readonly status: 'invited' | 'active';
  readonly totp_enabled: boolean;
  readonly created_at: string;
  readonly last_sign_in_at: string | null;
  readonly active_sessions: number;
}

export interface InvitedUserBody {
  readonly user_id: string;
  readonly email: string;
  readonly role: Role;
  readonly status: 'invited';
  readonly invitation_url: string;
  readonly invitation_expires_at: string;
  readonly email_sent: boolean;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export function sessionBody(user: User, account: Account, csrfToken: string, expiresAt: number): SessionBody {
  return {
    user: { user_id: user.id, email: user.email, role: user.role, totp_enabled: user.totpSecret !== null, locale: user.locale },
    account: { account_id: account.id, name: account.name },
    csrf_token: csrfToken,
    expires_at: iso(expiresAt),
  };
}

export function userBody({ user, activeSessions }: UserWithSessions): UserBody {
  return {
    user_id: user.id, email: user.email, role: user.role, status: user.passwordHash === null ? 'invited' : 'active',
    totp_enabled: user.totpSecret !== null, created_at: iso(user.createdAt),
    last_sign_in_at: user.lastSignInAt === null ? null : iso(user.lastSignInAt), active_sessions: activeSessions,
  };
}

export function invitedBody(invitation: Invitation): InvitedUserBody {
  return {
    user_id: invitation.user.id, email: invitation.user.email, role: invitation.user.role, status: 'invited',
    invitation_url: invitation.url, invitation_expires_at: iso(invitation.expiresAt), email_sent: invitation.emailSent,
  };
}
