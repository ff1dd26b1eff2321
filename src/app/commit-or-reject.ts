import { ok, RejectionError, type Result } from '../domain/result.ts';
import type { Db, Tx } from '../store/database.ts';

/**
 * Runs `work` in one transaction. A RejectionError thrown inside (a debit that would
 * overdraw, say) rolls everything back and comes out as a rejected Result; any
 * other error propagates.
 */
export async function commitOrReject<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<Result<T>> {
  try {
    return ok(await db.transaction().execute(work));
  } catch (error) {
    if (error instanceof RejectionError) return { ok: false, rejection: error.rejection };
    throw error;
  }
}
