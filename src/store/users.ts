import { sql } from 'kysely';
import { isLocale, type Locale } from '../domain/locale.ts';
import { isRole, type User } from '../domain/user.ts';
import type { Role } from '../domain/access.ts';
import type { Executor, UserRow } from './database.ts';

const toUser = (row: UserRow): User => {
  // A role this code does not know (none is written) grants the least.
  const role: Role = isRole(row.role) ? row.role : 'viewer';
  return {
    id: row.id, accountId: row.account_id, email: row.email, role,
    passwordHash: row.password_hash, totpSecret: row.totp_secret, totpPendingSecret: row.totp_pending_secret,
    totpLastStep: row.totp_last_step === null ? null : Number(row.totp_last_step),
    createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
    lastSignInAt: row.last_sign_in_at === null ? null : Number(row.last_sign_in_at),
    locale: isLocale(row.locale) ? row.locale : null,
  };
};

export async function insertUser(db: Executor, user: Pick<User, 'id' | 'accountId' | 'email' | 'role' | 'createdAt'>): Promise<void> {
  await db.insertInto('users').values({
    id: user.id, account_id: user.accountId, email: user.email, role: user.role, password_hash: null,
    totp_secret: null, totp_pending_secret: null, totp_last_step: null,
    created_at: user.createdAt, updated_at: user.createdAt, last_sign_in_at: null, locale: null,
  }).execute();
}

export async function findUser(db: Executor, id: string): Promise<User | undefined> {
  const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toUser(row);
}

/** The account's user with this id; undefined for another account's. */
export async function findAccountUser(db: Executor, accountId: string, id: string): Promise<User | undefined> {
  const row = await db.selectFrom('users').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return row && toUser(row);
}

/** The one user who signs in with this address (has a password); invited users of any account are not. */
export async function findSigningInUser(db: Executor, email: string): Promise<User | undefined> {
  const row = await db.selectFrom('users').selectAll().where('email', '=', email).where('password_hash', 'is not', null).executeTakeFirst();
  return row && toUser(row);
}

/** The account's user (invited or not) with this address. */
export async function findAccountUserByEmail(db: Executor, accountId: string, email: string): Promise<User | undefined> {
  const row = await db.selectFrom('users').selectAll().where('email', '=', email).where('account_id', '=', accountId).executeTakeFirst();
  return row && toUser(row);
}

/** The account's users with how many live sessions each has now, oldest first. */
export async function listUsers(db: Executor, accountId: string, now: number, idleMs: number): Promise<{ user: User; activeSessions: number }[]> {
  const rows = await db
    .selectFrom('users')
    .selectAll('users')
    .select((eb) => eb
      .selectFrom('sessions')
      .select(sql<number>`count(*)`.as('n'))
      .whereRef('sessions.user_id', '=', 'users.id')
      .where('sessions.ended_at', 'is', null)
      .where('sessions.expires_at', '>', now)
      .where('sessions.last_seen_at', '>', now - idleMs)
      .as('active_sessions'))
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ user: toUser(row), activeSessions: Number(row.active_sessions ?? 0) }));
}

export async function countUsers(db: Executor, accountId: string): Promise<number> {
  const row = await db.selectFrom('users').select(sql<number>`count(*)`.as('n')).where('account_id', '=', accountId).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Owners of the account that have accepted their invitation. */
export async function countActiveOwners(db: Executor, accountId: string): Promise<number> {
  const row = await db.selectFrom('users').select(sql<number>`count(*)`.as('n'))
    .where('account_id', '=', accountId).where('role', '=', 'owner').where('password_hash', 'is not', null).executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function setUserRole(db: Executor, id: string, role: Role, now: number): Promise<void> {
  await db.updateTable('users').set({ role, updated_at: now }).where('id', '=', id).execute();
}

/** The user's language; null goes back to the browser's. */
export async function setUserLocale(db: Executor, id: string, locale: Locale | null, now: number): Promise<void> {
  await db.updateTable('users').set({ locale, updated_at: now }).where('id', '=', id).execute();
}

export async function setPasswordHash(db: Executor, id: string, passwordHash: string, now: number): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash, updated_at: now }).where('id', '=', id).execute();
}

export async function recordSignIn(db: Executor, id: string, now: number): Promise<void> {
  await db.updateTable('users').set({ last_sign_in_at: now }).where('id', '=', id).execute();
}

export async function deleteUser(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('users').where('id', '=', id).execute();
}

export async function setTotpPending(db: Executor, id: string, encryptedSecret: string | null, now: number): Promise<void> {
  await db.updateTable('users').set({ totp_pending_secret: encryptedSecret, updated_at: now }).where('id', '=', id).execute();
}

/** Turns the pending secret into the user's second factor (or `null`: turns it off). */
export async function setTotpSecret(db: Executor, id: string, encryptedSecret: string | null, step: number | null, now: number): Promise<void> {
  await db.updateTable('users')
    .set({ totp_secret: encryptedSecret, totp_pending_secret: null, totp_last_step: step, updated_at: now })
    .where('id', '=', id).execute();
}

/**
 * Records the time step of an accepted code, only if it is later than the last one:
 * false means the code was used already (a replay, or a second request racing this one).
 */
export async function claimTotpStep(db: Executor, id: string, step: number): Promise<boolean> {
  const result = await db.updateTable('users')
    .set({ totp_last_step: step })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}
