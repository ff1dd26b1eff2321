import type { Role } from '../domain/access.ts';
import type { Account } from '../domain/account.ts';
import { parseAddress } from '../domain/email-address.ts';
import { DEFAULT_LOCALE, type Locale } from '../domain/locale.ts';
import { textsFor } from '../i18n/server-texts.ts';
import { ok, reject, RejectionError, type Result } from '../domain/result.ts';
import { INVITATION_PAGE, type User } from '../domain/user.ts';
import { findAccount } from '../store/accounts.ts';
import type { Executor } from '../store/database.ts';
import { endOtherUserSessions, endUserSessions } from '../store/sessions.ts';
import { findLiveLink, insertUserLink, useLink, voidLinks } from '../store/user-links.ts';
import {
  countActiveOwners, deleteUser, findAccountUser, findAccountUserByEmail, findSigningInUser, findUser, insertUser, listUsers, setPasswordHash,
  setUserRole,
} from '../store/users.ts';
import { hashPassword, verifyPassword } from './password-hash.ts';
import { queueServiceEmail } from './service-email.ts';
import { hashToken, newToken, type AuthDeps } from './sessions.ts';

// The users of an account (docs/users-and-sessions.md): an operator or an owner
// invites one (a user row without a password and a one-time link); following the link
// sets the password. Removing a user deletes the row and its sessions, and a role
// change is read by the next request: both apply at once in every process.

export interface UserWithSessions {
  readonly user: User;
  readonly activeSessions: number;
}

export interface Invitation {
  readonly user: User;
  /** The one-time link (its token after the `#`): in the answer to the inviter and the invitation email only. */
  readonly url: string;
  readonly expiresAt: number;
  /** Whether the link was emailed; false when herald has no sender (HERALD_AUTH_EMAIL_FROM unset). */
  readonly emailSent: boolean;
}

/** The invitation email in the language the invitation was made in (docs/languages.md). */
function invitationEmail(locale: Locale, accountName: string | undefined, role: Role, url: string, expiresAt: number): { subject: string; text: string } {
  const t = textsFor(locale, 'emails');
  const account = accountName ?? t('invitation.someAccount');
  return {
    subject: t('invitation.subject', { account }),
    text: t('invitation.text', { account, role: t(`invitation.role.${role}`), url, until: new Date(expiresAt).toISOString() }),
  };
}

const NEW_USER_ROLE = 'role must be one of: owner, developer, viewer, to invite someone new';

/** The address as stored (lower-cased), or the field's rejection. */
function userEmail(raw: string): Result<string> {
  const address = parseAddress(raw);
  return address === null ? reject('invalidField', { detail: 'email must be an email address' }) : ok(address.toLowerCase());
}

/**
 * Invites a user to the account, or invites again one who has not accepted yet (a new
 * link; the earlier ones stop working; the role kept unless one is given: a second
 * invitation never changes it by accident). Someone new needs a role. An address that
 * already signs in to this account is refused. One that signs in to another account is
 * invited like any other, so the answer tells nobody who uses herald: sign-in names no
 * account, so an address belongs to one user who signs in, and the invitee learns at
 * acceptance that this address is taken (setPasswordByLink). A pending invitation holds
 * nothing: other accounts may invite the same address, and the first accepted wins.
 */
export async function inviteUser(
  deps: AuthDeps, accountId: string, input: { email: string; role?: Role | undefined; locale?: Locale },
): Promise<Result<Invitation>> {
  const email = userEmail(input.email);
  if (!email.ok) return email;
  const now = deps.clock();
  const token = newToken();
  const expiresAt = now + deps.auth.invitationMs;
  try {
    const user = await deps.db.transaction().execute(async (tx) => {
      const existing = await findAccountUserByEmail(tx, accountId, email.value);
      if (existing !== undefined && existing.passwordHash !== null) throw new RejectionError({ code: 'userExists' });
      let user: User;
      if (existing === undefined) {
        if (input.role === undefined) throw new RejectionError({ code: 'invalidField', detail: NEW_USER_ROLE });
        user = { id: deps.newId(), accountId, email: email.value, role: input.role, passwordHash: null, totpSecret: null, totpPendingSecret: null, totpLastStep: null, createdAt: now, updatedAt: now, lastSignInAt: null, locale: null };
        await insertUser(tx, user);
      } else {
        user = { ...existing, role: input.role ?? existing.role, updatedAt: now };
        if (user.role !== existing.role) await setUserRole(tx, user.id, user.role, now);
        await voidLinks(tx, user.id, 'invitation', now);
      }
      await insertUserLink(tx, { tokenHash: hashToken(token), userId: user.id, purpose: 'invitation', createdAt: now, expiresAt });
      return user;
    });
    const url = `${deps.publicUrl}${INVITATION_PAGE}#${token}`;
    const account = await findAccount(deps.db, accountId);
    const emailSent = await queueServiceEmail(deps, {
      to: user.email, kind: 'invitation', ...invitationEmail(input.locale ?? DEFAULT_LOCALE, account?.name, user.role, url, expiresAt),
    });
    return ok({ user, url, expiresAt, emailSent });
  } catch (error) {
    if (error instanceof RejectionError) return { ok: false, rejection: error.rejection };
    throw error;
  }
}

export interface InvitationDetails {
  readonly user: User;
  readonly account: Account;
  readonly expiresAt: number;
}

/** What an unused, unexpired invitation link is for; notFound for anything else. */
export async function findInvitation(deps: AuthDeps, token: string): Promise<Result<InvitationDetails>> {
  const link = await findLiveLink(deps.db, hashToken(token), 'invitation', deps.clock());
  const user = link && (await findUser(deps.db, link.userId));
  const account = user && (await findAccount(deps.db, user.accountId));
  if (link === undefined || user === undefined || account === undefined || user.passwordHash !== null) return reject('linkInvalid');
  return ok({ user, account, expiresAt: link.expiresAt });
}

/**
 * Uses a one-time link up and sets the user's password (accepting an invitation, or a
 * password reset): every session the user had ends, and the other links of the same
 * purpose stop working. The caller then starts the new session. An invitation for an
 * address that signs in to another account meanwhile is refused with addressInUse, the
 * link left unused (the invitee may ask for one to another address).
 */
export async function setPasswordByLink(
  deps: AuthDeps, token: string, purpose: 'invitation' | 'password_reset', password: string,
): Promise<Result<User>> {
  const now = deps.clock();
  const tokenHash = hashToken(token);
  const link = await findLiveLink(deps.db, tokenHash, purpose, now);
  if (link === undefined) return reject('linkInvalid');
  // Hashed before the transaction: ~0.3 s that no lock should wait on.
  const passwordHash = await hashPassword(password);
  const taken = async (user: User): Promise<boolean> => {
    const signingIn = await findSigningInUser(deps.db, user.email);
    return signingIn !== undefined && signingIn.id !== user.id;
  };
  const invited = await findUser(deps.db, link.userId);
  if (purpose === 'invitation' && invited !== undefined && (await taken(invited))) return reject('addressInUse');
  let user: User | undefined;
  try {
    user = await deps.db.transaction().execute(async (tx) => {
      const found = await findUser(tx, link.userId);
      if (found === undefined || !(await useLink(tx, tokenHash, now))) return undefined;
      // An invitation is for a user without a password; once one is set, older invitations are void.
      if (purpose === 'invitation' && found.passwordHash !== null) return undefined;
      await setPasswordHash(tx, found.id, passwordHash, now);
      await voidLinks(tx, found.id, purpose, now);
      await endUserSessions(tx, found.id, now);
      return { ...found, passwordHash, updatedAt: now };
    });
  } catch (error) {
    // Two accounts' invitations of one address accepted at once: the unique index of
    // addresses that sign in refused the second (whatever the engine calls it).
    if (invited !== undefined && (await taken(invited))) return reject('addressInUse');
    throw error;
  }
  return user === undefined ? reject('linkInvalid') : ok(user);
}

export async function listAccountUsers(deps: AuthDeps, accountId: string): Promise<UserWithSessions[]> {
  return listUsers(deps.db, accountId, deps.clock(), deps.auth.sessionIdleMs);
}

/** Refuses a change that would leave the account without an owner who can sign in. */
async function keepsAnOwner(tx: Executor, user: User): Promise<boolean> {
  if (user.role !== 'owner' || user.passwordHash === null) return true;
  return (await countActiveOwners(tx, user.accountId)) > 1;
}

export async function changeUserRole(deps: AuthDeps, accountId: string, userId: string, role: Role): Promise<Result<UserWithSessions>> {
  const now = deps.clock();
  try {
    await deps.db.transaction().execute(async (tx) => {
      const user = await findAccountUser(tx, accountId, userId);
      if (user === undefined) throw new RejectionError({ code: 'notFound' });
      if (role !== 'owner' && !(await keepsAnOwner(tx, user))) throw new RejectionError({ code: 'lastOwner' });
      await setUserRole(tx, userId, role, now);
    });
  } catch (error) {
    if (error instanceof RejectionError) return { ok: false, rejection: error.rejection };
    throw error;
  }
  const changed = (await listAccountUsers(deps, accountId)).find((entry) => entry.user.id === userId);
  return changed === undefined ? reject('notFound') : ok(changed);
}

/** Deletes the user, their sessions and links: their next request is signed out, in every process. */
export async function removeUser(deps: AuthDeps, accountId: string, userId: string): Promise<Result<void>> {
  try {
    await deps.db.transaction().execute(async (tx) => {
      const user = await findAccountUser(tx, accountId, userId);
      if (user === undefined) throw new RejectionError({ code: 'notFound' });
      if (!(await keepsAnOwner(tx, user))) throw new RejectionError({ code: 'lastOwner' });
      await deleteUser(tx, userId);
    });
    return ok(undefined);
  } catch (error) {
    if (error instanceof RejectionError) return { ok: false, rejection: error.rejection };
    throw error;
  }
}

/**
 * A new password for the signed-in user, who proves the current one: their other
 * sessions end, and a reset link still pending stops working (it was asked for the
 * password that is gone, perhaps by someone else, and must not undo the change).
 */
export async function changeOwnPassword(deps: AuthDeps, user: User, keepSessionId: string, current: string, next: string): Promise<Result<void>> {
  if (!(await verifyPassword(current, user.passwordHash))) return reject('currentPasswordIncorrect');
  const passwordHash = await hashPassword(next);
  const now = deps.clock();
  await deps.db.transaction().execute(async (tx) => {
    await setPasswordHash(tx, user.id, passwordHash, now);
    await voidLinks(tx, user.id, 'password_reset', now);
    await endOtherUserSessions(tx, user.id, keepSessionId, now);
  });
  return ok(undefined);
}
