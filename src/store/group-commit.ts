import { sql, type Kysely } from 'kysely';
import type { Database, Db, Tx } from './database.ts';
import type { DirectSqlite } from './opened-store.ts';
import { bindDirect, unbindDirect } from './prepared-statement.ts';
import { BatchDebits, bindBatchDebits, unbindBatchDebits } from './postgres/batch-debits.ts';
import { bindEventTally, EventTally, unbindEventTally } from './event-tally.ts';
import type { RecordedPublicEvent } from '../domain/event-catalogue.ts';
import { TogetherQueues, type BatchedWrite } from './write-together.ts';

/**
 * Runs a unit of write work atomically: all of it commits, or none of it. The work may
 * be run more than once (see groupCommitter), so it does database work only.
 */
export interface Committer {
  run<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Writes `item` together with the others of its kind that arrive meanwhile, in one
   * statement outside a transaction (store/write-together.ts). Absent (a committer
   * without batches): write it alone, `run((tx) => kind.alone(tx, item))`. `onWritten` is
   * called once the item is written, once per batch for the items of a batch.
   */
  writeTogether?<I, R>(kind: BatchedWrite<I, R>, item: I, onWritten?: () => void): Promise<R>;
}

/**
 * One transaction per unit of work: for callers given no committer (tests, tools). The
 * service commits through groupCommitter on both engines.
 */
export function transactionPerWork(db: Db, onEvents?: EventListener): Committer {
  if (onEvents === undefined) return { run: (work) => db.transaction().execute(work) };
  return {
    async run(work) {
      const tally = new EventTally();
      const value = await db.transaction().execute((tx) => {
        bindEventTally(tx, tally);
        return work(tx);
      });
      onEvents(tally.take());
      return value;
    },
  };
}

/** A group committer can be closed: see groupCommitter. */
export interface GroupCommitter extends Committer {
  writeTogether<I, R>(kind: BatchedWrite<I, R>, item: I, onWritten?: () => void): Promise<R>;
  /**
   * Before the store is destroyed: units queued and not yet in a batch are rejected with
   * StoreClosed, and so is every later one; resolves once the batches in flight are
   * settled, so none runs on a destroyed store and no caller waits forever.
   */
  close(): Promise<void>;
}

/** The answer of a unit of work given to a group committer that was closed before it ran. */
export class StoreClosed extends Error {
  override name = 'StoreClosed';
  constructor() {
    super('the store was closed before this unit of work was committed: nothing of it is stored');
  }
}

/** Told the public events a transaction recorded, once it has committed (the outcome counters). */
export type EventListener = (events: readonly RecordedPublicEvent[]) => void;

interface Pending {
  readonly work: (tx: Tx) => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  /** Times the unit was put back after losing a lock wait (see GroupCommitOptions.lockWait). */
  retries: number;
  /** Run in a batch of its own, waiting on locks as long as it takes (it lost a bounded wait before). */
  alone: boolean;
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
  /** Told the public events of each committed transaction once it is durable (store/event-tally.ts). */
  readonly onEvents?: EventListener;
  /**
   * Batches in flight at once, each on a connection of its own (default 1). SQLite has
   * one writer: 1. PostgreSQL runs transactions side by side, so while one batch waits
   * on the server another is filled and sent.
   */
  readonly lanes?: number;
  /**
   * Locks held by other transactions (PostgreSQL: another process's claim of the same
   * Idempotency-Key, another batch's debit of the same account). A unit waiting on one
   * holds its whole batch, so a batch of several units waits at most `timeoutMs`
   * (`SET LOCAL lock_timeout`); a unit that lost such a wait, or was chosen as a
   * deadlock's victim, is run again by itself, waiting as long as it takes, as it
   * would in a transaction of its own. Absent (SQLite): a writer never waits on a row.
   */
  readonly lockWait?: { readonly timeoutMs: number; readonly isLockLoss: (error: unknown) => boolean };
  /**
   * PostgreSQL: the debits of a batch (store/accounts.ts debitMessagesWithEntry,
   * debitBalanceWithEntry) wait for the end of the batch and are taken there, once per
   * account, in one statement (store/postgres/batch-debits.ts), so an account's row is locked
   * for that statement and the COMMIT only, not from the batch's first debit on.
   */
  readonly deferDebits?: boolean;
}

/**
 * Group commit: units of work that arrive while a batch is being committed wait, and
 * then go together into ONE transaction. The batch pays for one durable commit (one
 * fsync; on PostgreSQL also one BEGIN and one COMMIT round trip) instead of one each.
 * SQLite has one writer and runs one batch at a time; on PostgreSQL `lanes` batches
 * run side by side on pooled connections, and `lockWait` bounds how long a batch waits
 * on another transaction's lock (see GroupCommitOptions).
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
 * then synced on libuv's thread pool (store/sqlite/connection.ts syncWal), and only then are the
 * batch's callers answered. Meanwhile the next batch runs. What a 200 promises is
 * unchanged (its commit is on disk); what differs is that other readers in this
 * process may see a batch during its sync, so a power cut in that window can lose a
 * message the worker already took — never one whose sender was answered.
 *
 * Nothing waits on a timer: an idle committer starts a batch on the next turn of the
 * event loop, so a lone request is committed as fast as before.
 *
 * What a batch costs on PostgreSQL, in round trips (each statement is one): BEGIN,
 * `SET LOCAL lock_timeout` (a batch of more than one), the units' statements, the
 * batch's debits in one statement (deferDebits), COMMIT (one WAL flush). N one-recipient
 * sends without an Idempotency-Key: N + 4 (the send's rows are one statement,
 * store/messages.ts), where debiting per unit made it 2N + 3.
 */
export function groupCommitter(db: Db, options: GroupCommitOptions): GroupCommitter {
  const queue: Pending[] = [];
  let closed = false;
  // Told when the last lane ends (close waits for the batches in flight).
  const drained: (() => void)[] = [];
  const lanes = Math.max(1, options.lanes ?? 1);
  let running = 0;
  // Whether the last batch saw a unit fail: then failures are likely, and savepoints cheaper than a second run.
  let expectFailures = false;
  const { direct, lockWait } = options;
  const deferDebits = options.deferDebits === true;

  // A tally per batch (when someone listens), emptied at each run of it.
  const tallyOfBatch = (): EventTally | undefined => (options.onEvents === undefined ? undefined : new EventTally());
  // A batch whose connection cannot be had (the store destroyed under it, say) fails
  // like any batch, so its units are answered rather than left waiting.
  const commit = async (batch: readonly Pending[], mode: BatchMode, tally: EventTally | undefined): Promise<BatchRun> => {
    try {
      return await commitOnce(batch, mode, tally);
    } catch (error) {
      return { kind: 'failed', error };
    }
  };
  const commitOnce = async (batch: readonly Pending[], mode: BatchMode, tally: EventTally | undefined): Promise<BatchRun> => {
    if (direct === undefined) return runBatch(db, batch, undefined, mode, tally);
    let run: BatchRun = { kind: 'failed', error: new Error('the batch did not run') };
    const held = direct.beforeBatch();
    if (held !== undefined) await held;
    await db.connection().execute(async (connection) => {
      // Held for the whole batch: no other statement runs on the connection while the
      // commit does not sync, and later statements (outside batches) sync as always.
      direct.statement('PRAGMA synchronous = NORMAL').run();
      try {
        run = await runBatch(connection, batch, direct, mode, tally);
      } finally {
        direct.statement('PRAGMA synchronous = FULL').run();
      }
    });
    return run;
  };

  /** The next batch: a unit put back to run alone goes by itself, the others up to maxBatch together. */
  const nextBatch = (): Pending[] => {
    const lone = queue.findIndex((unit) => unit.alone);
    if (lone === 0) return queue.splice(0, 1);
    return queue.splice(0, lone < 0 ? options.maxBatch : Math.min(lone, options.maxBatch));
  };

  const lane = async (): Promise<void> => {
    try {
      while (queue.length > 0) {
        const batch = nextBatch();
        const tally = tallyOfBatch();
        const lockTimeoutMs = lockWait !== undefined && batch.length > 1 ? lockWait.timeoutMs : undefined;
        let run: BatchRun | undefined;
        if (!expectFailures || batch.length === 1) {
          run = await commit(batch, { savepoints: false, lockTimeoutMs, deferDebits }, tally);
          const loser = run.kind === 'rerun' && lostLock(run.error) ? batch[run.index] : undefined;
          if (loser !== undefined && loser.retries < MAX_LOCK_RETRIES) {
            // Nothing of the batch is stored: the unit that lost a lock wait goes alone, the others again together.
            loser.alone = true;
            loser.retries += 1;
            queue.unshift(...batch.filter((unit) => unit !== loser), loser);
            continue;
          }
          if (run.kind === 'rerun') run = undefined;
        }
        if (run === undefined) {
          run = await commit(batch, { savepoints: true, lockTimeoutMs, deferDebits: false }, tally);
          expectFailures = run.kind === 'done' && run.outcomes.some((outcome) => !outcome.ok && !lostLock(outcome.error));
        }
        if (run.kind === 'done') options.onBatch?.(batch.length);
        const events = run.kind === 'done' ? tally?.take() : undefined;
        settle(putBackLockLosers(batch, run), run, direct, () => {
          if (events !== undefined && events.length > 0) options.onEvents?.(events);
        });
      }
    } finally {
      running -= 1;
      if (running === 0) for (const done of drained.splice(0)) done();
    }
  };

  const lostLock = (error: unknown): boolean => lockWait?.isLockLoss(error) === true;

  /**
   * The units that lost a lock wait (or a deadlock) go back to the head of the queue, to
   * run alone; the others are answered. A unit alone that loses again (a deadlock) tries
   * a few more times before its error is its answer.
   */
  const putBackLockLosers = (batch: readonly Pending[], run: BatchRun): readonly Pending[] => {
    if (lockWait === undefined) return batch;
    const losers = batch.filter((unit, i) => unit.retries < MAX_LOCK_RETRIES && lostLock(run.kind === 'done' ? failureOf(run.outcomes[i]) : run.kind === 'failed' ? run.error : undefined));
    if (losers.length === 0) return batch;
    for (const unit of losers) {
      unit.retries += 1;
      unit.alone = true;
    }
    queue.unshift(...losers);
    return batch.map((unit) => (losers.includes(unit) ? PUT_BACK : unit));
  };

  const run = <T>(work: (tx: Tx) => Promise<T>): Promise<T> => {
    if (closed) return Promise.reject(new StoreClosed());
    return new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject, retries: 0, alone: false });
      // Requests parsed in the same turn of the event loop join this batch.
      if (running < lanes) {
        running += 1;
        setImmediate(() => void lane());
      }
    });
  };
  // Batched writes wait on lanes of their own; an item they write alone is a unit of this committer.
  const together = new TogetherQueues(db, run, options.onEvents);

  return {
    run,
    writeTogether(kind, item, onWritten) {
      return closed ? Promise.reject(new StoreClosed()) : together.write(kind, item, onWritten);
    },
    async close() {
      closed = true;
      for (const unit of queue.splice(0)) unit.reject(new StoreClosed());
      await together.close(new StoreClosed());
      if (running > 0) await new Promise<void>((resolve) => drained.push(resolve));
    },
  };
}

/** Times a unit is put back after losing a lock wait (or a deadlock) before that error is its answer. */
const MAX_LOCK_RETRIES = 5;
/** Stands, in a settled batch, for a unit put back: a later batch answers it. */
const PUT_BACK: Pending = { work: async () => undefined, resolve: () => {}, reject: () => {}, retries: 0, alone: false };

const failureOf = (outcome: UnitOutcome | undefined): unknown => (outcome === undefined || outcome.ok ? undefined : outcome.error);

interface BatchMode {
  /** Each unit in a savepoint of its own, so a failing one is undone alone. */
  readonly savepoints: boolean;
  /** PostgreSQL: how long a statement of the batch may wait on a lock (GroupCommitOptions.lockWait). */
  readonly lockTimeoutMs: number | undefined;
  /** The batch's debits taken at its end (GroupCommitOptions.deferDebits); never with savepoints. */
  readonly deferDebits: boolean;
}

type UnitOutcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

type BatchRun =
  /** Committed; each unit's result (a failed unit was rolled back to its savepoint). */
  | { readonly kind: 'done'; readonly outcomes: readonly UnitOutcome[] }
  /** Nothing of the batch is stored: the transaction (or its commit) failed. */
  | { readonly kind: 'failed'; readonly error: unknown }
  /** A unit (the batch's `index`th) failed without savepoints: all rolled back, to be run again with them. */
  | { readonly kind: 'rerun'; readonly index: number; readonly error: unknown };

/** One batch in one transaction; the connection is `db`'s (or the one held for the batch). */
async function runBatch(db: Kysely<Database>, batch: readonly Pending[], direct: DirectSqlite | undefined, mode: BatchMode, tally: EventTally | undefined): Promise<BatchRun> {
  let trx;
  try {
    trx = await db.startTransaction().execute();
  } catch (error) {
    return { kind: 'failed', error };
  }
  if (direct) bindDirect(trx, direct);
  // Whatever an earlier run of this batch noted was rolled back with it.
  tally?.rollbackTo(0);
  if (tally) bindEventTally(trx, tally);
  if (mode.lockTimeoutMs !== undefined) {
    try {
      await sql.raw(`set local lock_timeout = ${Math.round(mode.lockTimeoutMs)}`).execute(trx);
    } catch (error) {
      await trx.rollback().execute().catch(() => {});
      return { kind: 'failed', error };
    }
  }
  const savepoints = mode.savepoints ? savepointStatements(trx, direct) : undefined;
  const debits = mode.deferDebits && !mode.savepoints && batch.length > 1 ? new BatchDebits() : undefined;
  if (debits) bindBatchDebits(trx, debits);
  try {
    const outcomes = await (debits ? runDeferringDebits(trx, batch, debits) : runUnits(trx, batch, savepoints, tally));
    await trx.commit().execute();
    return { kind: 'done', outcomes };
  } catch (error) {
    // Units still waiting on their debit end now, before the rollback (none may write after it).
    debits?.abandon(error);
    await trx.rollback().execute().catch(() => {});
    tally?.rollbackTo(0);
    if (!(error instanceof UnitFailed)) return { kind: 'failed', error };
    // A batch of one needs no savepoint: its unit's failure is simply the unit's.
    return batch.length > 1 ? { kind: 'rerun', index: error.index, error: error.cause } : { kind: 'done', outcomes: [{ ok: false, error: error.cause }] };
  } finally {
    unbindDirect(trx);
    unbindBatchDebits(trx);
    unbindEventTally(trx);
  }
}

/** The units of a batch one after the other, each (with savepoints) undone alone if it fails. */
async function runUnits(trx: Tx, batch: readonly Pending[], savepoints: Savepoints | undefined, tally: EventTally | undefined): Promise<UnitOutcome[]> {
  const outcomes: UnitOutcome[] = [];
  for (const [index, unit] of batch.entries()) {
    await savepoints?.begin();
    const noted = tally?.mark() ?? 0;
    try {
      const value = await unit.work(trx);
      await savepoints?.release();
      outcomes.push({ ok: true, value });
    } catch (error) {
      if (!savepoints) throw new UnitFailed(error, index);
      await savepoints.rollback();
      tally?.rollbackTo(noted);
      outcomes.push({ ok: false, error });
    }
  }
  return outcomes;
}

/**
 * The units of a batch without savepoints, their debits taken together at the end:
 * each unit runs until it finishes or waits on its debit, then the next starts (one at
 * a time, as their statements share the connection); then the batch's debits are one
 * statement, and each waiting unit, in order, is handed its answer and runs to its end
 * (an Idempotency-Key's answer is stored after the debit) before the next goes on.
 * A unit that fails, or an account short of the batch's total, throws UnitFailed: the
 * batch is rolled back and runs again the per-unit way (see groupCommitter).
 */
async function runDeferringDebits(trx: Tx, batch: readonly Pending[], debits: BatchDebits): Promise<UnitOutcome[]> {
  const running: Promise<UnitOutcome>[] = [];
  for (const [index, unit] of batch.entries()) {
    const waits = debits.unitStarts(index);
    const done = unit.work(trx).then((value): UnitOutcome => ({ ok: true, value }), (error: unknown): UnitOutcome => ({ ok: false, error }));
    running.push(done);
    const first = await Promise.race([done, waits.then(() => undefined)]);
    if (first !== undefined && !first.ok) throw new UnitFailed(first.error, index);
  }
  let answers;
  try {
    answers = await debits.take(trx);
  } catch (error) {
    // An account short of the total (or a lost lock wait): the first unit that debits stands for the batch.
    throw new UnitFailed(error, debits.waitingUnits[0] ?? 0);
  }
  const outcomes: UnitOutcome[] = [];
  for (const [index, done] of running.entries()) {
    debits.answer(index, answers);
    const outcome = await done;
    if (!outcome.ok) throw new UnitFailed(outcome.error, index);
    outcomes.push(outcome);
  }
  return outcomes;
}

/** Tells every unit its outcome: at once, or (with the direct connection) once the commit is synced. */
function settle(batch: readonly Pending[], run: BatchRun, direct: DirectSqlite | undefined, committed: () => void): void {
  const answer = (): void => {
    if (run.kind === 'done') committed();
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
  readonly index: number;
  constructor(cause: unknown, index: number) {
    super('a unit of work failed', { cause });
    this.index = index;
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
