import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Db, Executor } from './database.ts';
import { onPostgres } from './prepared-statement.ts';

// Reads whose cost grows with an account's contacts (segment counts, campaign quotes)
// bounded in time, so that no request holds the process past a documented limit
// (HERALD_HEAVY_READ_TIMEOUT_MS). PostgreSQL runs the read in a transaction with
// `SET LOCAL statement_timeout`: the server cancels it and the pool's connection is
// free at once. SQLite runs on the event loop's thread and node:sqlite exposes no
// progress handler, so the read is cut into slices of the account's contacts by id
// (the contacts_account_id index): each slice is sized to take about SLICE_MS from the
// last one's time, the loop turns between slices, and past the deadline the read stops.
// Measured on SQLite (test/http/segment-bounds.test.ts, test/e2e/hostile-imports.test.ts):
// a 50-condition count over 60,000 contacts, one statement, held the loop for its whole
// run; in slices, under 50 ms of work at a time. Over 1,000,000 contacts, counts ran
// into the 10 s limit (503) with /healthz answering in at most 128 ms meanwhile.

/** The read took longer than its limit: the request is answered 503. */
export class HeavyReadTimeout extends Error {
  override name = 'HeavyReadTimeout';
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`the read took longer than ${timeoutMs} ms`);
    this.timeoutMs = timeoutMs;
  }
}

/** Contacts of one account with ids in (after, upTo]; an absent bound is open. */
export interface IdRange {
  readonly after?: string;
  readonly upTo?: string;
}

/** Time a SQLite slice aims to hold the event loop. */
const SLICE_MS = 20;
// The first slice is sized blind: small, since a 50-condition filter took about 50 ms over
// 1,000 contacts on a loaded 2-core machine; the next ones are sized from its time.
const FIRST_SLICE = 250;
const MIN_SLICE = 50;
const MAX_SLICE = 200_000;

// PostgreSQL's SQLSTATE for a statement cancelled by statement_timeout.
const QUERY_CANCELED = '57014';

/**
 * The element-wise sum of `read` over the account's contacts (each call counts the
 * contacts of one range), within `timeoutMs` of wall time.
 */
export async function boundedContactSums(
  db: Db, accountId: string, timeoutMs: number, read: (executor: Executor, range: IdRange) => Promise<readonly number[]>,
): Promise<number[]> {
  if (onPostgres(db)) return [...await withStatementTimeout(db, timeoutMs, (tx) => read(tx, {}))];
  const deadline = performance.now() + timeoutMs;
  const totals: number[] = [];
  let after: string | undefined;
  let size = FIRST_SLICE;
  for (;;) {
    const started = performance.now();
    const upTo = await nthContactId(db, accountId, after, size);
    const sums = await read(db, { ...(after === undefined ? {} : { after }), ...(upTo === undefined ? {} : { upTo }) });
    sums.forEach((n, i) => (totals[i] = (totals[i] ?? 0) + n));
    if (upTo === undefined) return totals;
    const took = performance.now() - started;
    // Aim the next slice at SLICE_MS, growing at most fourfold at a time.
    size = Math.max(MIN_SLICE, Math.min(MAX_SLICE, size * 4, Math.round((size * SLICE_MS) / Math.max(took, 0.1))));
    after = upTo;
    if (performance.now() > deadline) throw new HeavyReadTimeout(timeoutMs);
    await nextTurn();
  }
}

/**
 * `read` bounded in time as one unit: on PostgreSQL in a transaction with `SET LOCAL
 * statement_timeout` (the server cancels it: HeavyReadTimeout); on SQLite, which cannot
 * cancel a statement, run as is and HeavyReadTimeout afterwards when it took longer
 * (the caller keeps each unit small: a slice, a window).
 */
export async function withStatementTimeout<T>(db: Db, timeoutMs: number, read: (executor: Executor) => Promise<T>): Promise<T> {
  if (!onPostgres(db)) {
    const started = performance.now();
    const value = await read(db);
    if (performance.now() - started > timeoutMs) throw new HeavyReadTimeout(timeoutMs);
    return value;
  }
  try {
    return await db.transaction().execute(async (tx) => {
      await sql`select set_config('statement_timeout', ${String(timeoutMs)}, true)`.execute(tx);
      return read(tx);
    });
  } catch (error) {
    if ((error as { code?: unknown }).code === QUERY_CANCELED) throw new HeavyReadTimeout(timeoutMs);
    throw error;
  }
}

/** The id of the account's `n`th contact after `after` in id order; undefined when fewer remain. */
export async function nthContactId(db: Executor, accountId: string, after: string | undefined, n: number): Promise<string | undefined> {
  let query = db.selectFrom('contacts').select('id').where('account_id', '=', accountId);
  if (after !== undefined) query = query.where('id', '>', after);
  const row = await query.orderBy('id').limit(1).offset(n - 1).executeTakeFirst();
  return row?.id;
}

/** The SQL condition of a range over `contacts as c` (or any alias whose id column is given). */
export function rangeCondition(range: IdRange, column = 'c.id') {
  const parts = [
    ...(range.after === undefined ? [] : [sql`${sql.ref(column)} > ${range.after}`]),
    ...(range.upTo === undefined ? [] : [sql`${sql.ref(column)} <= ${range.upTo}`]),
  ];
  return parts.length === 0 ? sql`(1 = 1)` : sql`(${sql.join(parts, sql` and `)})`;
}
