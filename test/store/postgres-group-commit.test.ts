// The group committer on PostgreSQL (store/group-commit.ts, as service.ts configures it):
// concurrent units of work share transactions, a unit that throws is undone alone, and a
// unit waiting on another transaction's lock holds its batch only for the bounded wait,
// then runs by itself and commits once the lock is free. Each test gets a fresh schema.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { isPostgresLockLoss, openStore } from '../../src/store/dialect.ts';
import { groupCommitter } from '../../src/store/group-commit.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import type { Db } from '../../src/store/database.ts';
import { freshSchema, TEST_POSTGRES_URL } from '../support/postgres.ts';

const skip = TEST_POSTGRES_URL === undefined ? 'TEST_POSTGRES_URL is not set' : false;

async function openDb(t: TestContext): Promise<{ db: Db; url: string }> {
  const schema = await freshSchema();
  const { db } = openStore(schema.url);
  t.after(async () => {
    await db.destroy();
    await schema.drop();
  });
  await migrateToLatest(db);
  return { db, url: schema.url };
}

const keysLike = async (db: Db, prefix: string): Promise<string[]> =>
  (await db.selectFrom('settings').select('key').where('key', 'like', `${prefix}%`).orderBy('key').execute()).map((row) => row.key);

const LOCK_WAIT = { timeoutMs: 200, isLockLoss: isPostgresLockLoss };

test('40 units started together all commit, each with its own result, in fewer transactions than units', { skip }, async (t) => {
  const { db } = await openDb(t);
  const batches: number[] = [];
  const committer = groupCommitter(db, { maxBatch: 16, lanes: 2, lockWait: LOCK_WAIT, onBatch: (units) => batches.push(units) });
  const results = await Promise.all(Array.from({ length: 40 }, (_, i) => committer.run(async (tx) => {
    await tx.insertInto('settings').values({ key: `k${String(i).padStart(2, '0')}`, value: String(i) }).execute();
    return i * 2;
  })));
  assert.deepStrictEqual(results, Array.from({ length: 40 }, (_, i) => i * 2));
  assert.equal((await keysLike(db, 'k')).length, 40);
  assert.equal(batches.reduce((sum, units) => sum + units, 0), 40);
  assert.ok(batches.length < 40, `batches: ${batches.join(', ')}`);
});

test('a unit that fails (a duplicate key) is undone alone: its neighbours in the batch commit', { skip }, async (t) => {
  const { db } = await openDb(t);
  await db.insertInto('settings').values({ key: 'taken', value: 'first' }).execute();
  const committer = groupCommitter(db, { maxBatch: 16, lanes: 1, lockWait: LOCK_WAIT });
  const outcomes = await Promise.allSettled([
    committer.run((tx) => tx.insertInto('settings').values({ key: 'gc-a', value: '1' }).execute()),
    committer.run((tx) => tx.insertInto('settings').values({ key: 'taken', value: 'second' }).execute()),
    committer.run((tx) => tx.insertInto('settings').values({ key: 'gc-b', value: '2' }).execute()),
  ]);
  assert.deepStrictEqual(outcomes.map((outcome) => outcome.status), ['fulfilled', 'rejected', 'fulfilled']);
  assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /duplicate key/);
  assert.deepStrictEqual(await keysLike(db, 'gc-'), ['gc-a', 'gc-b']);
  const taken = await db.selectFrom('settings').select('value').where('key', '=', 'taken').executeTakeFirstOrThrow();
  assert.equal(taken.value, 'first');
});

test('a unit waiting on another transaction\'s lock holds its batch only for the bounded wait: the others commit, it commits when the lock is free', { skip, timeout: 20_000 }, async (t) => {
  const { db, url } = await openDb(t);
  await db.insertInto('settings').values({ key: 'held', value: 'before' }).execute();
  // Another process's transaction holds the row's lock.
  const other = new pg.Client({ connectionString: url });
  await other.connect();
  t.after(() => other.end());
  await other.query('begin');
  await other.query(`update settings set value = 'other' where key = 'held'`);

  const committer = groupCommitter(db, { maxBatch: 16, lanes: 1, lockWait: LOCK_WAIT });
  let runs = 0;
  const first = committer.run((tx) => tx.insertInto('settings').values({ key: 'n1', value: '1' }).execute());
  const blocked = committer.run(async (tx) => {
    runs += 1;
    await tx.updateTable('settings').set({ value: 'mine' }).where('key', '=', 'held').execute();
    return 'updated';
  });
  const last = committer.run((tx) => tx.insertInto('settings').values({ key: 'n2', value: '2' }).execute());
  await Promise.all([first, last]);
  assert.deepStrictEqual(await keysLike(db, 'n'), ['n1', 'n2']);

  // Still waiting, alone and without a time limit, for as long as the other holds the lock.
  await new Promise((resolve) => setTimeout(resolve, 500));
  await other.query('commit');
  assert.equal(await blocked, 'updated');
  const held = await db.selectFrom('settings').select('value').where('key', '=', 'held').executeTakeFirstOrThrow();
  assert.equal(held.value, 'mine');
  // Run with the batch (bounded wait, lost) and then alone (waited and committed).
  assert.equal(runs, 2);
});
