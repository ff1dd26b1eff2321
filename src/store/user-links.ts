import type { Executor } from './database.ts';

// One-time links sent to a user: an invitation (sets the first password) and a password
// reset. The token travels in the link's fragment; only its SHA-256 is stored here.

export type LinkPurpose = 'invitation' | 'password_reset';

export interface UserLink {
  readonly userId: string;
  readonly purpose: LinkPurpose;
  readonly expiresAt: number;
}

export async function insertUserLink(db: Executor, link: UserLink & { tokenHash: string; createdAt: number }): Promise<void> {
  await db.insertInto('user_links').values({
    token_hash: link.tokenHash, user_id: link.userId, purpose: link.purpose,
    created_at: link.createdAt, expires_at: link.expiresAt, used_at: null,
  }).execute();
}

/** The unused, unexpired link of this purpose with this hash. */
export async function findLiveLink(db: Executor, tokenHash: string, purpose: LinkPurpose, now: number): Promise<UserLink | undefined> {
  const row = await db.selectFrom('user_links').selectAll()
    .where('token_hash', '=', tokenHash).where('purpose', '=', purpose)
    .where('used_at', 'is', null).where('expires_at', '>', now)
    .executeTakeFirst();
  return row && { userId: row.user_id, purpose, expiresAt: Number(row.expires_at) };
}

/** Uses the link up; false when another request used it first. */
export async function useLink(db: Executor, tokenHash: string, now: number): Promise<boolean> {
  const result = await db.updateTable('user_links').set({ used_at: now })
    .where('token_hash', '=', tokenHash).where('used_at', 'is', null).executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Makes the user's earlier links of this purpose unusable (a new one was sent, or the password was set). */
export async function voidLinks(db: Executor, userId: string, purpose: LinkPurpose, now: number): Promise<void> {
  await db.updateTable('user_links').set({ used_at: now })
    .where('user_id', '=', userId).where('purpose', '=', purpose).where('used_at', 'is', null).execute();
}
