// The group committer: concurrent units of work share one transaction, and one unit's
// failure never undoes or blocks its neighbours (the batch runs again in savepoints).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { openStore } from '../../../src/store/dialect.ts';
import { groupCommitter, StoreClosed } from '../../../src/store/group-commit.ts';
import { migrateToLatest } from '../../../src/store/migrate.ts';
import type { Db } from '../../../src/store/database.ts';
import { execute, statement } from '../../../src/store/prepared-statement.ts';

async function openDb(t: import('node:test').TestContext): Promise<Db> {
  const { db } = openStore('sqlite::memory:');
  await migrateToLatest(db);
  t.after(() => db.destroy());
  return db;
}

const setting = async (db: Db, key: string): Promise<string | undefined> =>
  (await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst())?.value;

test('units started together all commit and each gets its own result', async (t) => {
  const db = await openDb(t);
  const committer = groupCommitter(db, { maxBatch: 16 });
  const results = await Promise.all(Array.from({ length: 40 }, (_, i) => committer.run(async (tx) => {
    await tx.insertInto('settings').values({ key: `k${i}`, value: String(i) }).execute();
    return i * 2;
  })));
  assert.deepStrictEqual(results, Array.from({ length: 40 }, (_, i) => i * 2));
  const count = await db.selectFrom('settings').select((eb) => eb.fn.countAll<number>().as('n')).where('key', 'like', 'k%').executeTakeFirstOrThrow();
  assert.equal(Number(count.n), 40);
});

test('a unit that throws is rolled back alone: its neighbours in the batch commit', async (t) => {
  const db = await openDb(t);
  const committer = groupCommitter(db, { maxBatch: 16 });
  const outcomes = await Promise.allSettled([
    committer.run(async (tx) => { await tx.insertInto('settings').values({ key: 'before', value: '1' }).execute(); }),
    committer.run(async (tx) => {
      await tx.insertInto('settings').values({ key: 'failing', value: '1' }).execute();
      throw new Error('overdraw');
    }),
    committer.run(async (tx) => { await tx.insertInto('settings').values({ key: 'after', value: '1' }).execute(); }),
  ]);
  assert.deepStrictEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled']);
  assert.equal((outcomes[1] as PromiseRejectedResult).reason.message, 'overdraw');
  assert.deepStrictEqual([await setting(db, 'before'), await setting(db, 'failing'), await setting(db, 'after')], ['1', undefined, '1']);
});

test('a unit that breaks a constraint fails alone and the batch goes on', async (t) => {
  const db = await openDb(t);
  const committer = groupCommitter(db, { maxBatch: 16 });
  const outcomes = await Promise.allSettled([
    committer.run(async (tx) => { await tx.insertInto('settings').values({ key: 'dup', value: 'first' }).execute(); }),
    committer.run(async (tx) => { await tx.insertInto('settings').values({ key: 'dup', value: 'second' }).execute(); }),
    committer.run(async (tx) => { await tx.insertInto('settings').values({ key: 'other', value: 'x' }).execute(); }),
  ]);
  assert.deepStrictEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled']);
  assert.deepStrictEqual([await setting(db, 'dup'), await setting(db, 'other')], ['first', 'x']);
});

test('each committed batch reports how many units it carried', async (t) => {
  const db = await openDb(t);
  const sizes: number[] = [];
  const committer = groupCommitter(db, { maxBatch: 16, onBatch: (units) => sizes.push(units) });
  const unit = (i: number) => committer.run(async (tx) => { await tx.insertInto('settings').values({ key: `b${i}`, value: '1' }).execute(); });
  // 20 units queued in one turn: a full batch of 16, then the 4 left.
  await Promise.all(Array.from({ length: 20 }, (_, i) => unit(i)));
  await unit(20);
  assert.deepStrictEqual(sizes, [16, 4, 1]);
});

test('work arriving while a batch commits is committed in the next batch', async (t) => {
  const db = await openDb(t);
  const committer = groupCommitter(db, { maxBatch: 2 });
  const late: Promise<void>[] = [];
  const first = committer.run(async (tx) => {
    // Queued from inside a running batch: must not be lost or run in this transaction's savepoint.
    late.push(committer.run(async (inner) => { await inner.insertInto('settings').values({ key: 'late', value: '1' }).execute(); }));
    await tx.insertInto('settings').values({ key: 'early', value: '1' }).execute();
  });
  await first;
  await Promise.all(late);
  assert.deepStrictEqual([await setting(db, 'early'), await setting(db, 'late')], ['1', '1']);
});

const insertSetting = statement('insert into settings (key, value) values ($1, $2)');

test('a batch without failures runs each unit once', async (t) => {
  const db = await openDb(t);
  const committer = groupCommitter(db, { maxBatch: 16 });
  const runs = new Map<string, number>();
  await Promise.all(['a', 'b', 'c'].map((key) => committer.run(async (tx) => {
    runs.set(key, (runs.get(key) ?? 0) + 1);
    await tx.insertInto('settings').values({ key, value: '1' }).execute();
  })));
  assert.deepStrictEqual(Object.fromEntries(runs), { a: 1, b: 1, c: 1 });
});

test('the neighbours of a failing unit commit exactly once, though they ran again', async (t) => {
  const db = await openDb(t);
  const committer = groupCommitter(db, { maxBatch: 16 });
  await Promise.allSettled([
    committer.run(async (tx) => { await tx.insertInto('settings').values({ key: 'n1', value: '1' }).execute(); }),
    committer.run(async () => { throw new Error('overdraw'); }),
    committer.run(async (tx) => { await tx.insertInto('settings').values({ key: 'n2', value: '1' }).execute(); }),
  ]);
  const rows = await db.selectFrom('settings').select('key').where('key', 'in', ['n1', 'n2']).orderBy('key').execute();
  assert.deepStrictEqual(rows.map((r) => r.key), ['n1', 'n2']);
});

test('after a batch with a failing unit, the next batch runs each unit once, in savepoints', async (t) => {
  const db = await openDb(t);
  const committer = groupCommitter(db, { maxBatch: 16 });
  await Promise.allSettled([committer.run(async () => {}), committer.run(async () => { throw new Error('overdraw'); })]);
  const runs: string[] = [];
  const outcomes = await Promise.allSettled([
    committer.run(async (tx) => { runs.push('ok'); await tx.insertInto('settings').values({ key: 'kept', value: '1' }).execute(); }),
    committer.run(async (tx) => {
      runs.push('failing');
      await tx.insertInto('settings').values({ key: 'undone', value: '1' }).execute();
      throw new Error('overdraw');
    }),
  ]);
  assert.deepStrictEqual(runs, ['ok', 'failing']);
  assert.deepStrictEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected']);
  assert.deepStrictEqual([await setting(db, 'kept'), await setting(db, 'undone')], ['1', undefined]);
});

test('prepared statements run straight on the SQLite connection commit with the batch, and a failing unit\'s are undone', async (t) => {
  const store = openStore('sqlite::memory:');
  await migrateToLatest(store.db);
  t.after(() => store.db.destroy());
  assert.ok(store.direct);
  const committer = groupCommitter(store.db, { maxBatch: 16, direct: store.direct });
  const outcomes = await Promise.allSettled([
    committer.run(async (tx) => { await execute(tx, insertSetting, ['direct-1', 'x']); }),
    committer.run(async (tx) => {
      await execute(tx, insertSetting, ['direct-undone', 'x']);
      throw new Error('overdraw');
    }),
    committer.run(async (tx) => { await execute(tx, insertSetting, ['direct-2', 'y']); }),
  ]);
  assert.deepStrictEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled']);
  assert.deepStrictEqual(
    [await setting(store.db, 'direct-1'), await setting(store.db, 'direct-undone'), await setting(store.db, 'direct-2')],
    ['x', undefined, 'y'],
  );
});

test('with the direct connection, a batch is answered only once its WAL sync is done, and the connection syncs every other commit', async (t) => {
  const store = openStore('sqlite::memory:');
  await migrateToLatest(store.db);
  t.after(() => store.db.destroy());
  const direct = store.direct;
  assert.ok(direct);
  let releaseSync!: () => void;
  const synced = new Promise<void>((resolve) => { releaseSync = resolve; });
  const committer = groupCommitter(store.db, { maxBatch: 16, direct: { statement: (text) => direct.statement(text), syncWal: () => synced, beforeBatch: () => undefined } });
  let answered = false;
  const unit = committer.run(async (tx) => { await execute(tx, insertSetting, ['synced', 'x']); }).then(() => { answered = true; });
  // Committed (visible on the connection) but not yet answered.
  while ((await setting(store.db, 'synced')) === undefined) await new Promise((resolve) => setImmediate(resolve));
  assert.equal(answered, false);
  const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(store.db);
  assert.equal(rows[0]?.synchronous, 2); // FULL
  releaseSync();
  await unit;
  assert.equal(answered, true);
});

test('when the WAL sync fails, the batch\'s callers are told it failed', async (t) => {
  const store = openStore('sqlite::memory:');
  await migrateToLatest(store.db);
  t.after(() => store.db.destroy());
  const direct = store.direct;
  assert.ok(direct);
  const committer = groupCommitter(store.db, {
    maxBatch: 16,
    direct: { statement: (text) => direct.statement(text), syncWal: async () => { throw new Error('EIO: i/o error, fdatasync'); }, beforeBatch: () => undefined },
  });
  await assert.rejects(committer.run(async (tx) => { await execute(tx, insertSetting, ['unsynced', 'x']); }), /EIO/);
});

test('a file store syncs its WAL: a batch committed through it survives reopening', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'herald-group-commit-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const location = `sqlite:${join(dir, 'herald.sqlite')}`;
  const first = openStore(location);
  await migrateToLatest(first.db);
  assert.ok(first.direct);
  const committer = groupCommitter(first.db, { maxBatch: 16, direct: first.direct });
  await Promise.all([1, 2, 3].map((i) => committer.run(async (tx) => { await execute(tx, insertSetting, [`file-${i}`, String(i)]); })));
  await first.db.destroy();
  const second = openStore(location);
  t.after(() => second.db.destroy());
  assert.deepStrictEqual(
    [await setting(second.db, 'file-1'), await setting(second.db, 'file-2'), await setting(second.db, 'file-3')],
    ['1', '2', '3'],
  );
});

test('closing answers the units still queued with StoreClosed, and every later one; the batch in flight commits first', async (t) => {
  const db = await openDb(t);
  const committer = groupCommitter(db, { maxBatch: 1 });
  let open = (): void => {};
  const gate = new Promise<void>((resolve) => (open = resolve));
  const inFlight = committer.run(async (tx) => {
    await tx.insertInto('settings').values({ key: 'in-flight', value: '1' }).execute();
    await gate;
    return 'committed';
  });
  const queued = [1, 2].map((n) => committer.run(async (tx) => { await tx.insertInto('settings').values({ key: `queued-${n}`, value: '1' }).execute(); }));
  await new Promise((resolve) => setImmediate(resolve));
  let closed = false;
  const closing = committer.close().then(() => (closed = true));
  const refused = await Promise.allSettled(queued);
  assert.deepStrictEqual(refused.map((r) => (r.status === 'rejected' ? [r.reason instanceof StoreClosed, (r.reason as Error).message] : r.status)), [
    [true, 'the store was closed before this unit of work was committed: nothing of it is stored'],
    [true, 'the store was closed before this unit of work was committed: nothing of it is stored'],
  ]);
  assert.equal(closed, false, 'close waits for the batch in flight');
  open();
  assert.equal(await inFlight, 'committed');
  await closing;
  await assert.rejects(committer.run(async () => 'late'), StoreClosed);
  assert.deepStrictEqual([await setting(db, 'in-flight'), await setting(db, 'queued-1'), await setting(db, 'queued-2')], ['1', undefined, undefined]);
});

test('a unit given to a committer whose SQLite store was destroyed fails instead of waiting forever', async () => {
  const { db, direct } = openStore('sqlite::memory:');
  await migrateToLatest(db);
  assert.ok(direct !== undefined);
  const committer = groupCommitter(db, { maxBatch: 16, direct });
  await db.destroy();
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    committer.run(async (tx) => { await tx.insertInto('settings').values({ key: 'late', value: '1' }).execute(); }).then(() => 'committed', () => 'failed'),
    new Promise((resolve) => (timer = setTimeout(resolve, 2000, 'still waiting'))),
  ]);
  clearTimeout(timer);
  assert.equal(outcome, 'failed');
});
