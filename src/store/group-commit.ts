import { sql } from 'kysely';
import type { Db, Tx } from './database.ts';
import { bindDirect, unbindDirect, type DirectSqlite } from './prepared-statement.ts';

/**
 * Runs a unit of write work atomically: all of it commits, or none of it. The work may
 * be run more than once (see groupCommitter), so it does database work only.
 */
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
 * transaction. The batch pays for one durable commit (one fsync) instead of one each.
 * No caller hears "done" before the shared commit is durable; if the commit itself
 * fails, every unit in it fails.
 *
 * A unit that fails (an overdraw, say) must not take its neighbours with it, which a
 * savepoint per unit guarantees — at a price: SQLite copies every page a unit changes
 * into the savepoint's journal, which doubled the cost of an accepted SMS. So a batch
 * first runs without savepoints; if a unit fails, the whole transaction is rolled back
 * and the batch runs again, each unit in its own savepoint, and later batches keep
 * savepoints until one passes without a failure. A unit of work may therefore run more
 * than once (every run but the last rolled back): it must do database work only.
 *
 * Nothing waits on a timer: an idle committer starts a batch on the next turn of the
 * event loop, so a lone request is committed as fast as before.
 */
export function groupCommitter(db: Db, options: GroupCommitOptions): Committer {
  const queue: Pending[] = [];
  let flushing = false;
  // Whether the last batch saw a unit fail: then failures are likely, and savepoints cheaper than a second run.
  let expectFailures = false;

  const flush = async (): Promise<void> => {
    flushing = true;
    try {
      while (queue.length > 0) {
        const batch = queue.splice(0, options.maxBatch);
        if (!expectFailures || batch.length === 1) {
          const optimistic = await commitBatch(db, batch, options.direct, { savepoints: false });
          if (optimistic.settled) continue;
        }
        expectFailures = (await commitBatch(db, batch, options.direct, { savepoints: true })).unitFailed;
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

interface BatchMode {
  /** Each unit in a savepoint of its own, so a failing one is undone alone. */
  readonly savepoints: boolean;
}

interface BatchResult {
  /**
   * Every unit was told its outcome. Not so only when a unit of a batch run without
   * savepoints failed: the batch was rolled back, for the caller to run again with them.
   * (A batch of one needs no savepoint: its unit's failure is simply the unit's.)
   */
  readonly settled: boolean;
  /** Some unit failed (and was told so). */
  readonly unitFailed: boolean;
}

async function commitBatch(db: Db, batch: readonly Pending[], direct: DirectSqlite | undefined, mode: BatchMode): Promise<BatchResult> {
  let trx;
  try {
    trx = await db.startTransaction().execute();
  } catch (error) {
    for (const unit of batch) unit.reject(error);
    return { settled: true, unitFailed: false };
  }
  if (direct) bindDirect(trx, direct);
  const savepoints = mode.savepoints ? savepointStatements(trx, direct) : undefined;
  const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
  try {
    for (const unit of batch) {
      await savepoints?.begin();
      try {
        const value = await unit.work(trx);
        await savepoints?.release();
        outcomes.push({ ok: true, value });
      } catch (error) {
        if (!savepoints) throw new UnitFailed(error);
        await savepoints.rollback();
        outcomes.push({ ok: false, error });
      }
    }
    await trx.commit().execute();
  } catch (error) {
    await trx.rollback().execute().catch(() => {});
    if (error instanceof UnitFailed) {
      if (batch.length > 1) return { settled: false, unitFailed: true };
      batch[0]?.reject(error.cause);
      return { settled: true, unitFailed: true };
    }
    // The shared commit (or a savepoint statement) failed: nothing of the batch is stored.
    for (const unit of batch) unit.reject(error);
    return { settled: true, unitFailed: false };
  } finally {
    unbindDirect(trx);
  }
  batch.forEach((unit, i) => {
    const outcome = outcomes[i];
    if (outcome?.ok === true) unit.resolve(outcome.value);
    else unit.reject(outcome?.error);
  });
  return { settled: true, unitFailed: outcomes.some((outcome) => !outcome.ok) };
}

/** A unit's own error, thrown through a batch that runs without savepoints. */
class UnitFailed extends Error {
  constructor(cause: unknown) {
    super('a unit of work failed', { cause });
  }
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
