// The group committer: concurrent units of work share one transaction, each in its
// own savepoint, so one unit's failure never undoes or blocks its neighbours.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../src/store/dialect.ts';
import { groupCommitter } from '../../src/store/group-commit.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import type { Db } from '../../src/store/database.ts';

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
