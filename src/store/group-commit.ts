import { sql } from 'kysely';
import type { Db, Tx } from './database.ts';
import { bindDirect, unbindDirect, type DirectSqlite } from './prepared-statement.ts';

/** Runs a unit of write work atomically: all of it commits, or none of it. */
export interface Committer {
  run<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
}

/** One transaction per unit of work: right for PostgreSQL, where a pool runs transactions side by side. */
export function transactionPerWork(db: Db): Committer {
  return { run: (work) => db.transaction().execute(work) };
}

interface Pending {
  readonly work: (tx: Tx) => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

export interface GroupCommitOptions {
  /** Most units of work in one transaction. */
  readonly maxBatch: number;
  /**
   * The SQLite connection (OpenedStore.direct): while a batch's transaction holds it,
   * the units' prepared statements and the savepoints run on it directly.
   */
  readonly direct?: DirectSqlite;
}

/**
 * Group commit for an embedded database with one writer (SQLite): units of work that
 * arrive while a commit is being written wait, and then go together into ONE
 * transaction, each inside its own savepoint. The batch pays for one durable commit
 * (one fsync) instead of one each, and a unit that fails (an overdraw, say) rolls back
 * to its savepoint without touching its neighbours. No caller hears "done" before the
 * shared commit is durable; if the commit itself fails, every unit in it fails.
 *
 * Nothing waits on a timer: an idle committer starts a batch on the next turn of the
 * event loop, so a lone request is committed as fast as before.
 */
export function groupCommitter(db: Db, options: GroupCommitOptions): Committer {
  const queue: Pending[] = [];
  let flushing = false;

  const flush = async (): Promise<void> => {
    flushing = true;
    try {
      while (queue.length > 0) {
        const batch = queue.splice(0, options.maxBatch);
        await commitBatch(db, batch, options.direct);
      }
    } finally {
      flushing = false;
    }
  };

  return {
    run<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
        // Requests parsed in the same turn of the event loop join this batch.
        if (!flushing) setImmediate(() => void flush());
        flushing = true;
      });
    },
  };
}

async function commitBatch(db: Db, batch: readonly Pending[], direct: DirectSqlite | undefined): Promise<void> {
  let trx;
  try {
    trx = await db.startTransaction().execute();
  } catch (error) {
    for (const unit of batch) unit.reject(error);
    return;
  }
  if (direct) bindDirect(trx, direct);
  // One unit needs no savepoint: its failure is the transaction's.
  const savepoints = batch.length > 1 ? savepointStatements(trx, direct) : undefined;
  const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
  try {
    for (const unit of batch) {
      await savepoints?.begin();
      try {
        const value = await unit.work(trx);
        await savepoints?.release();
        outcomes.push({ ok: true, value });
      } catch (error) {
        if (!savepoints) throw error;
        await savepoints.rollback();
        outcomes.push({ ok: false, error });
      }
    }
    await trx.commit().execute();
  } catch (error) {
    // The shared commit (or a savepoint statement) failed: nothing of the batch is stored.
    await trx.rollback().execute().catch(() => {});
    for (const unit of batch) unit.reject(error);
    return;
  } finally {
    unbindDirect(trx);
  }
  batch.forEach((unit, i) => {
    const outcome = outcomes[i];
    if (outcome?.ok === true) unit.resolve(outcome.value);
    else unit.reject(outcome?.error);
  });
}

interface Savepoints {
  begin(): Promise<void>;
  release(): Promise<void>;
  /** Undoes the unit's statements and leaves the savepoint, so the next unit starts clean. */
  rollback(): Promise<void>;
}

function savepointStatements(trx: Tx, direct: DirectSqlite | undefined): Savepoints {
  const run = direct
    ? async (text: string) => { direct.statement(text).run(); }
    : async (text: string) => { await sql.raw(text).execute(trx); };
  return {
    begin: () => run('savepoint unit'),
    release: () => run('release unit'),
    rollback: async () => {
      await run('rollback to unit');
      await run('release unit');
    },
  };
}
