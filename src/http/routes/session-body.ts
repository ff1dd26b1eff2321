import type { UserWithSessions } from '../../app/users.ts';
import type { Account } from '../../domain/account.ts';
import type { User } from '../../domain/user.ts';
import { INVITATION_PAGE, type InvitedUser, type Session, type UserView } from '../account-api-schemas.ts';

// The contract's shapes of users and sessions, from the domain's objects.

const iso = (ms: number): string => new Date(ms).toISOString();

export function sessionBody(user: User, account: Account, csrfToken: string, expiresAt: number): Session {
  return {
    user: { user_id: user.id, email: user.email, role: user.role, totp_enabled: user.totpSecret !== null },
    account: { account_id: account.id, name: account.name },
    csrf_token: csrfToken,
    expires_at: iso(expiresAt),
  };
}

export function userBody({ user, activeSessions }: UserWithSessions): UserView {
  return {
    user_id: user.id, email: user.email, role: user.role, status: user.passwordHash === null ? 'invited' : 'active',
    totp_enabled: user.totpSecret !== null, created_at: iso(user.createdAt),
    last_sign_in_at: user.lastSignInAt === null ? null : iso(user.lastSignInAt), active_sessions: activeSessions,
  };
}

export function invitedBody(publicUrl: string, invitation: { user: User; token: string; expiresAt: number }): InvitedUser {
  return {
    user_id: invitation.user.id, email: invitation.user.email, role: invitation.user.role, status: 'invited',
    invitation_url: `${publicUrl}${INVITATION_PAGE}#${invitation.token}`, invitation_expires_at: iso(invitation.expiresAt),
  };
}
