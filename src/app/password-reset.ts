import { parseAddress } from '../domain/email-address.ts';
import { PASSWORD_RESET_PAGE } from '../domain/user.ts';
import { insertUserLink, voidLinks } from '../store/user-links.ts';
import { findUserByEmail } from '../store/users.ts';
import { queueServiceEmail } from './service-email.ts';
import { hashToken, newToken, type AuthDeps } from './sessions.ts';

// Asking for a password reset: a one-time link by email, to a user who has a password
// (an invited user follows their invitation instead). The answer is the same whether
// or not the address has a user, so the form tells nobody who signs in here. Setting
// the new password is users.ts setPasswordByLink, as for an invitation.

const resetText = (url: string, expiresAt: number): string => `Hello,

Someone (we hope you) asked to reset your herald password. Follow this link to choose a new one:

${url}

The link works once, until ${new Date(expiresAt).toISOString()}. Setting a new password signs you out everywhere.
If you did not ask for this, ignore this email: your password stays as it is.
`;

/** Sends the link when the address has a user with a password and herald has a sender; says nothing either way. */
export async function requestPasswordReset(deps: AuthDeps, email: string): Promise<void> {
  const address = parseAddress(email)?.toLowerCase();
  const user = address === undefined ? undefined : await findUserByEmail(deps.db, address);
  if (user === undefined || user.passwordHash === null || deps.auth.emailFrom === undefined) return;
  const now = deps.clock();
  const token = newToken();
  const expiresAt = now + deps.auth.passwordResetMs;
  await deps.db.transaction().execute(async (tx) => {
    await voidLinks(tx, user.id, 'password_reset', now);
    await insertUserLink(tx, { tokenHash: hashToken(token), userId: user.id, purpose: 'password_reset', createdAt: now, expiresAt });
  });
  const url = `${deps.publicUrl}${PASSWORD_RESET_PAGE}#${token}`;
  await queueServiceEmail(deps, { to: user.email, kind: 'password_reset', subject: 'Reset your herald password', text: resetText(url, expiresAt) });
}
