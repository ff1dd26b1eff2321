import { setTimeout as sleep } from 'node:timers/promises';
import { parseAddress } from '../domain/email-address.ts';
import { DEFAULT_LOCALE, type Locale } from '../domain/locale.ts';
import { textsFor } from '../i18n/server-texts.ts';
import { PASSWORD_RESET_PAGE } from '../domain/user.ts';
import { insertUserLink, voidLinks } from '../store/user-links.ts';
import { findSigningInUser } from '../store/users.ts';
import { queueServiceEmail } from './service-email.ts';
import { hashToken, newToken, type AuthDeps } from './sessions.ts';

// Asking for a password reset: a one-time link by email, to a user who has a password
// (an invited user follows their invitation instead). The answer is the same whether
// or not the address has a user, so the form tells nobody who signs in here, and so is
// its time: the request is answered RESET_ANSWER_MS after it began, whatever the work
// took (an existing user's link and email took 17 ms, an unknown address 11 ms, before
// this floor); work that outlasts the floor finishes after the answer. Setting the new
// password is users.ts setPasswordByLink, as for an invitation.

/** Every password-reset request is answered this long after it began (well above the work's 10–20 ms, and its slow tail under load). */
export const RESET_ANSWER_MS = 250;

/** Sends the link when the address has a user with a password and herald has a sender; says nothing either way. */
export async function requestPasswordReset(deps: AuthDeps, email: string, askedIn?: Locale): Promise<void> {
  const address = parseAddress(email)?.toLowerCase();
  const user = address === undefined ? undefined : await findSigningInUser(deps.db, address);
  if (user === undefined || user.passwordHash === null || deps.auth.emailFrom === undefined) return;
  const now = deps.clock();
  const token = newToken();
  const expiresAt = now + deps.auth.passwordResetMs;
  await deps.db.transaction().execute(async (tx) => {
    await voidLinks(tx, user.id, 'password_reset', now);
    await insertUserLink(tx, { tokenHash: hashToken(token), userId: user.id, purpose: 'password_reset', createdAt: now, expiresAt });
  });
  const url = `${deps.publicUrl}${PASSWORD_RESET_PAGE}#${token}`;
  // The user's own language; else the one the form was asked in; else English.
  const t = textsFor(user.locale ?? askedIn ?? DEFAULT_LOCALE, 'emails');
  await queueServiceEmail(deps, {
    to: user.email, kind: 'password_reset',
    subject: t('passwordReset.subject'), text: t('passwordReset.text', { url, until: new Date(expiresAt).toISOString() }),
  });
}

/**
 * requestPasswordReset, answered RESET_ANSWER_MS after the start whatever it finds; a
 * failure of the work (it may outlast the answer) goes to `failed`, never to the caller.
 */
export async function requestPasswordResetEvenly(deps: AuthDeps, email: string, failed: (error: unknown) => void, askedIn?: Locale): Promise<void> {
  const floor = sleep(RESET_ANSWER_MS);
  void requestPasswordReset(deps, email, askedIn).catch(failed);
  await floor;
}
