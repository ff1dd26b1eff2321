import { sql, type Kysely } from 'kysely';
import type { Database, Db, Tx } from './database.ts';
import type { DirectSqlite } from './dialect.ts';
import { bindDirect, unbindDirect } from './prepared-statement.ts';

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
   * The SQLite connection (OpenedStore.direct). With it, the units' prepared statements
   * and the savepoints run on it directly, and each batch's commit is made durable off
   * the event loop (see groupCommitter). Without it, every commit syncs in place.
   */
  readonly direct?: DirectSqlite;
  /** Told the number of units of each committed transaction (the batch-size metric). */
  readonly onBatch?: (units: number) => void;
}

/**
 * Group commit for an embedded database with one writer (SQLite): units of work that
 * arrive while a batch is being committed wait, and then go together into ONE
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
 * With the direct connection, the fsync leaves the event loop: the batch commits with
 * `synchronous = NORMAL` (SQLite writes the WAL but does not sync it), the WAL file is
 * then synced on libuv's thread pool (store/dialect.ts syncWal), and only then are the
 * batch's callers answered. Meanwhile the next batch runs. What a 200 promises is
 * unchanged (its commit is on disk); what differs is that other readers in this
 * process may see a batch during its sync, so a power cut in that window can lose a
 * message the worker already took — never one whose sender was answered.
 *
 * Nothing waits on a timer: an idle committer starts a batch on the next turn of the
 * event loop, so a lone request is committed as fast as before.
 */
export function groupCommitter(db: Db, options: GroupCommitOptions): Committer {
  const queue: Pending[] = [];
  let flushing = false;
  // Whether the last batch saw a unit fail: then failures are likely, and savepoints cheaper than a second run.
  let expectFailures = false;
  const { direct } = options;

  const commit = async (batch: readonly Pending[], mode: BatchMode): Promise<BatchRun> => {
    if (direct === undefined) return runBatch(db, batch, undefined, mode);
    let run: BatchRun = { kind: 'failed', error: new Error('the batch did not run') };
    await db.connection().execute(async (connection) => {
      // Held for the whole batch: no other statement runs on the connection while the
      // commit does not sync, and later statements (outside batches) sync as always.
      direct.statement('PRAGMA synchronous = NORMAL').run();
      try {
        run = await runBatch(connection, batch, direct, mode);
      } finally {
        direct.statement('PRAGMA synchronous = FULL').run();
      }
    });
    return run;
  };

  const flush = async (): Promise<void> => {
    flushing = true;
    try {
      while (queue.length > 0) {
        const batch = queue.splice(0, options.maxBatch);
        let run: BatchRun | undefined;
        if (!expectFailures || batch.length === 1) {
          run = await commit(batch, { savepoints: false });
          if (run.kind === 'rerun') run = undefined;
        }
        if (run === undefined) {
          run = await commit(batch, { savepoints: true });
          expectFailures = run.kind === 'done' && run.outcomes.some((outcome) => !outcome.ok);
        }
        if (run.kind === 'done') options.onBatch?.(batch.length);
        settle(batch, run, direct);
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

type UnitOutcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

type BatchRun =
  /** Committed; each unit's result (a failed unit was rolled back to its savepoint). */
  | { readonly kind: 'done'; readonly outcomes: readonly UnitOutcome[] }
  /** Nothing of the batch is stored: the transaction (or its commit) failed. */
  | { readonly kind: 'failed'; readonly error: unknown }
  /** A unit failed without savepoints: all rolled back, to be run again with them. */
  | { readonly kind: 'rerun' };

/** One batch in one transaction; the connection is `db`'s (or the one held for the batch). */
async function runBatch(db: Kysely<Database>, batch: readonly Pending[], direct: DirectSqlite | undefined, mode: BatchMode): Promise<BatchRun> {
  let trx;
  try {
    trx = await db.startTransaction().execute();
  } catch (error) {
    return { kind: 'failed', error };
  }
  if (direct) bindDirect(trx, direct);
  const savepoints = mode.savepoints ? savepointStatements(trx, direct) : undefined;
  const outcomes: UnitOutcome[] = [];
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
    return { kind: 'done', outcomes };
  } catch (error) {
    await trx.rollback().execute().catch(() => {});
    if (!(error instanceof UnitFailed)) return { kind: 'failed', error };
    // A batch of one needs no savepoint: its unit's failure is simply the unit's.
    return batch.length > 1 ? { kind: 'rerun' } : { kind: 'done', outcomes: [{ ok: false, error: error.cause }] };
  } finally {
    unbindDirect(trx);
  }
}

/** Tells every unit its outcome: at once, or (with the direct connection) once the commit is synced. */
function settle(batch: readonly Pending[], run: BatchRun, direct: DirectSqlite | undefined): void {
  const answer = (): void => {
    if (run.kind !== 'done') {
      for (const unit of batch) unit.reject(run.kind === 'failed' ? run.error : new Error('unreachable: a batch left to rerun'));
      return;
    }
    batch.forEach((unit, i) => {
      const outcome = run.outcomes[i];
      if (outcome?.ok === true) unit.resolve(outcome.value);
      else unit.reject(outcome?.error);
    });
  };
  if (direct === undefined || run.kind !== 'done') {
    answer();
    return;
  }
  direct.syncWal().then(answer, (error: unknown) => {
    // The commit happened but cannot be known to be on disk: nobody is told it succeeded.
    for (const unit of batch) unit.reject(error);
  });
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
