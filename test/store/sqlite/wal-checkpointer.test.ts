import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'node:test';
import { sql } from 'kysely';
import { openStore } from '../../../src/store/dialect.ts';
import { SQLITE_AUTOCHECKPOINT_PAGES, startWalCheckpointer, type WalCheckpointerOptions } from '../../../src/store/wal-checkpointer.ts';
import { repeatEvery } from '../../../src/queue/periodic-job.ts';
import { captureLog } from '../../support/captured-log.ts';

const PAGE = 4096;
/** The WAL's length (pages) the pause keeps a busy writer under, and checkpoints alone do not. */
const WAL_BOUND_PAGES = 1500;
const BATCHES = 1500;

async function tempFile(t: test.TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'herald-wal-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'herald.db');
}

const until = async (done: () => boolean, what: string): Promise<void> => {
  const deadline = Date.now() + 5000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/** A WAL database file written by this connection, and the checkpointer's settings of its `wal_autocheckpoint`. */
async function walDatabase(t: test.TestContext): Promise<{ location: string; db: DatabaseSync; autocheckpoint: number[] }> {
  const location = await tempFile(t);
  const db = new DatabaseSync(location);
  db.exec('PRAGMA journal_mode = WAL; create table t (id integer primary key, v text)');
  return { location, db, autocheckpoint: [] };
}

function checkpointerOf(t: test.TestContext, target: { location: string; db: DatabaseSync; autocheckpoint: number[] }, options: Partial<Omit<WalCheckpointerOptions, 'repeat'>>) {
  const checkpointer = startWalCheckpointer(target.location, {
    setAutocheckpoint: (pages) => {
      target.autocheckpoint.push(pages);
      target.db.exec(`PRAGMA wal_autocheckpoint = ${pages}`);
    },
    onFailure: (error) => assert.fail(String(error)),
    repeat: repeatEvery('wal-checkpoint', { logger: captureLog().logger }),
    ...options,
  });
  t.after(async () => {
    await checkpointer.close();
    target.db.close();
  });
  return checkpointer;
}

test('an idle file store checkpoints as SQLite does by default: no thread', async (t) => {
  const location = await tempFile(t);
  const store = openStore(`sqlite:${location}`);
  t.after(() => store.db.destroy());
  const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.db);
  assert.equal(rows[0]?.wal_autocheckpoint, SQLITE_AUTOCHECKPOINT_PAGES);
});

test('batches at the starting rate hand the checkpoints to the thread, which copies the WAL into the database file', async (t) => {
  const target = await walDatabase(t);
  const checkpointer = checkpointerOf(t, target, { startAtBatchesPerSecond: 3, intervalMs: 10 });
  const insert = target.db.prepare('insert into t (v) values (?)');
  assert.equal(checkpointer.beforeBatch(), undefined);
  assert.equal(checkpointer.beforeBatch(), undefined);
  assert.deepEqual(target.autocheckpoint, []);
  assert.equal(checkpointer.beforeBatch(), undefined); // the third in a second
  await checkpointer.running();
  assert.deepEqual(target.autocheckpoint.slice(0, 1), [0]);
  const before = statSync(target.location).size;
  for (let i = 0; i < 100; i += 1) insert.run('x'.repeat(2000));
  // With wal_autocheckpoint 0 the connection never copies the WAL itself.
  await until(() => statSync(target.location).size > before + 25 * PAGE, 'the database file to grow');
});

test('when the store has been idle, the thread ends and the connection checkpoints for itself again', async (t) => {
  const target = await walDatabase(t);
  const checkpointer = checkpointerOf(t, target, { startAtBatchesPerSecond: 0, intervalMs: 10, idleMs: 100 });
  checkpointer.beforeBatch();
  await checkpointer.running();
  await until(() => target.autocheckpoint.at(-1) === SQLITE_AUTOCHECKPOINT_PAGES, 'the connection to checkpoint again');
  assert.deepEqual([target.autocheckpoint[0], target.autocheckpoint.at(-1)], [0, SQLITE_AUTOCHECKPOINT_PAGES]);
});

/**
 * 1,500 batches of 10 rows of 1 KB (about 7,600 pages of WAL) with the thread checkpointing; the WAL's length at the end,
 * in pages. Enough that the unpaced WAL passes the bound even on a busy machine, where the thread keeps up better (a CI
 * run of 600 batches ended at 1,224 pages, against 3,046 on a quiet one); the paced WAL stays near 200 pages at any length.
 */
async function writeBatches(t: test.TestContext, pauseAfterFrames: number): Promise<{ walPages: number; rows: number }> {
  const target = await walDatabase(t);
  const checkpointer = checkpointerOf(t, target, { startAtBatchesPerSecond: 0, intervalMs: 5, pauseAfterFrames });
  const insert = target.db.prepare('insert into t (v) values (?)');
  checkpointer.beforeBatch();
  await checkpointer.running();
  for (let batch = 0; batch < BATCHES; batch += 1) {
    const held = checkpointer.beforeBatch();
    if (held !== undefined) await held;
    target.db.exec('begin immediate');
    for (let i = 0; i < 10; i += 1) insert.run('y'.repeat(1000));
    target.db.exec('commit');
    // As the group committer does between batches: the next one starts on the next turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
  }
  const walPages = (await stat(`${target.location}-wal`)).size / PAGE;
  return { walPages, rows: (target.db.prepare('select count(*) as n from t').get() as { n: number }).n };
}

test('when the WAL passes its limit, the writer waits for a checkpoint of all of it, and the WAL is reused from its start', async (t) => {
  const { walPages, rows } = await writeBatches(t, 64);
  assert.equal(rows, BATCHES * 10);
  // The limit, and what was written until the next report came: every 5 ms, but much later on a busy machine.
  assert.ok(walPages < WAL_BOUND_PAGES, `the WAL holds ${walPages} pages`);
});

test('without the limit, checkpoints alone leave a busy WAL growing: the test above measures the pause', async (t) => {
  const { walPages, rows } = await writeBatches(t, Number.MAX_SAFE_INTEGER);
  assert.equal(rows, BATCHES * 10);
  // The bound the test above holds fails here. Not a higher figure: on a slow machine the
  // thread keeps up better (1,698 and 1,224 pages in CI runs of 600 batches), but never within the bound.
  assert.ok(walPages > WAL_BOUND_PAGES, `the WAL holds ${walPages} pages`);
});
