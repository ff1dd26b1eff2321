import { ok, RejectionError, type Result } from '../domain/result.ts';
import type { Db, Tx } from '../store/database.ts';
import type { Committer } from '../store/group-commit.ts';

/**
 * Runs `work` atomically: through the committer (a group commit on SQLite), or in a
 * transaction of its own when given the database. A RejectionError thrown inside (a
 * debit that would overdraw, say) rolls all of it back and comes out as a rejected
 * Result; any other error propagates.
 */
export async function commitOrReject<T>(target: Committer | Db, work: (tx: Tx) => Promise<T>): Promise<Result<T>> {
  try {
    return ok(await ('run' in target ? target.run(work) : target.transaction().execute(work)));
  } catch (error) {
    if (error instanceof RejectionError) return { ok: false, rejection: error.rejection };
    throw error;
  }
}
