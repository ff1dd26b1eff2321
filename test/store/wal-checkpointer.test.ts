import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'node:test';
import { sql } from 'kysely';
import { openStore } from '../../src/store/dialect.ts';
import { startWalCheckpointer } from '../../src/store/wal-checkpointer.ts';

const PAGE = 4096;

async function tempFile(t: test.TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'herald-wal-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'herald.db');
}

const until = async (done: () => Promise<boolean> | boolean, what: string): Promise<void> => {
  const deadline = Date.now() + 5000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

test('a file store leaves checkpoints to the checkpointer thread: its own connection never checkpoints', async (t) => {
  const location = await tempFile(t);
  const store = openStore(`sqlite:${location}`);
  t.after(() => store.db.destroy());
  const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.db);
  assert.equal(rows[0]?.wal_autocheckpoint, 0);
  await sql`create table t (id integer primary key, v text)`.execute(store.db);
  const before = (await stat(location)).size;
  for (let i = 0; i < 200; i += 1) await sql`insert into t (v) values (${'x'.repeat(2000)})`.execute(store.db);
  // The thread copies the WAL into the database file on its own.
  await until(async () => (await stat(location)).size > before + 100 * PAGE, 'the database file to grow');
});

/** 600 batches of 10 rows of 1 KB (about 3,000 pages of WAL) with a checkpointer; the WAL's length at the end, in pages. */
async function writeBatches(t: test.TestContext, pauseAfterFrames: number): Promise<{ walPages: number; rows: number }> {
  const location = await tempFile(t);
  const db = new DatabaseSync(location);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; create table t (id integer primary key, v text)');
  const checkpointer = startWalCheckpointer(location, { intervalMs: 5, pauseAfterFrames, onFailure: (error) => assert.fail(String(error)) });
  t.after(async () => {
    await checkpointer.close();
    db.close();
  });
  await checkpointer.ready;
  const insert = db.prepare('insert into t (v) values (?)');
  for (let batch = 0; batch < 600; batch += 1) {
    const held = checkpointer.beforeBatch();
    if (held !== undefined) await held;
    db.exec('begin immediate');
    for (let i = 0; i < 10; i += 1) insert.run('y'.repeat(1000));
    db.exec('commit');
    // As the group committer does between batches: the next one starts on the next turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
  }
  const walPages = (await stat(`${location}-wal`)).size / PAGE;
  return { walPages, rows: (db.prepare('select count(*) as n from t').get() as { n: number }).n };
}

test('when the WAL passes its limit, the writer waits for a checkpoint of all of it, and the WAL is reused from its start', async (t) => {
  const { walPages, rows } = await writeBatches(t, 64);
  assert.equal(rows, 6000);
  // The limit, and what was written until the next report came: every 5 ms, but much later on a busy machine.
  assert.ok(walPages < 1500, `the WAL holds ${walPages} pages`);
});

test('without the limit, checkpoints alone leave a busy WAL growing: the test above measures the pause', async (t) => {
  const { walPages, rows } = await writeBatches(t, Number.MAX_SAFE_INTEGER);
  assert.equal(rows, 6000);
  assert.ok(walPages > 2000, `the WAL holds ${walPages} pages`);
});
