import type { Executor } from './database.ts';

// The Idempotency-Key of a send (README "Idempotent sends"; app/idempotent-send.ts).
// The row is claimed at the start of the send's transaction and given the answer at its
// end, so a key is stored exactly when its send is: no crash leaves one without the other.
// On PostgreSQL a second transaction claiming the same key waits on the primary key until
// the first ends, then finds it taken (or takes it, if the first rolled back).

export interface IdempotencyKeyClaim {
  readonly accountId: string;
  readonly key: string;
  readonly fingerprint: string;
  readonly now: number;
  readonly expiresAt: number;
}

export interface StoredAnswer {
  readonly fingerprint: string;
  readonly status: number;
  /** The answer's JSON text, as it was sent. */
  readonly answer: string;
}

/**
 * Takes the key for this transaction's send: true when it was free (never used, or
 * expired and not yet purged), false when an unexpired row holds it.
 */
export async function claimIdempotencyKey(tx: Executor, claim: IdempotencyKeyClaim): Promise<boolean> {
  const fresh = { fingerprint: claim.fingerprint, status: 0, answer: '', created_at: claim.now, expires_at: claim.expiresAt };
  const taken = await tx.insertInto('idempotency_keys')
    .values({ account_id: claim.accountId, key: claim.key, ...fresh })
    .onConflict((oc) => oc.columns(['account_id', 'key']).doUpdateSet(fresh).where('idempotency_keys.expires_at', '<=', claim.now))
    .returning('key')
    .executeTakeFirst();
  return taken !== undefined;
}

/** Writes the answer of the send that claimed the key, in the same transaction. */
export async function recordIdempotentAnswer(tx: Executor, accountId: string, key: string, status: number, answer: string): Promise<void> {
  await tx.updateTable('idempotency_keys').set({ status, answer }).where('account_id', '=', accountId).where('key', '=', key).execute();
}

/** The key's stored answer, unless it expired by `now`. */
export async function findIdempotencyKey(db: Executor, accountId: string, key: string, now: number): Promise<StoredAnswer | undefined> {
  const row = await db.selectFrom('idempotency_keys').select(['fingerprint', 'status', 'answer'])
    .where('account_id', '=', accountId).where('key', '=', key).where('expires_at', '>', now)
    .executeTakeFirst();
  return row && { fingerprint: row.fingerprint, status: Number(row.status), answer: row.answer };
}

/** Deletes up to `limit` keys expired by `now`, oldest first; returns how many. */
export async function purgeExpiredIdempotencyKeys(db: Executor, now: number, limit: number): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys')
    .where((eb) => eb(eb.refTuple('account_id', 'key'), 'in',
      eb.selectFrom('idempotency_keys').select(['account_id', 'key']).where('expires_at', '<=', now).orderBy('expires_at').limit(limit).$asTuple('account_id', 'key')))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
