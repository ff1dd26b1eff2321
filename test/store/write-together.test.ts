// The group committer's batched writes (store/write-together.ts): items of one kind that
// arrive together are written in one call outside a transaction; what that call cannot
// take is written alone, as a unit of work of the committer. The kind below writes
// settings rows, so what each path wrote can be read back.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../src/store/dialect.ts';
import type { Db } from '../../src/store/database.ts';
import { groupCommitter, StoreClosed, type GroupCommitter } from '../../src/store/group-commit.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import type { BatchedWrite, TogetherOutcome } from '../../src/store/write-together.ts';

async function openCommitter(t: TestContext): Promise<{ db: Db; committer: GroupCommitter }> {
  const { db } = openStore('sqlite::memory:');
  await migrateToLatest(db);
  const committer = groupCommitter(db, { maxBatch: 16 });
  t.after(async () => {
    await committer.close();
    await db.destroy();
  });
  return { db, committer };
}

/** Writes `key` rows; `outcomeOf` decides what the batch call (the first is 1) does with each key (default: written). */
function settingsKind(outcomeOf: (key: string, batch: number) => 'done' | 'later' | 'alone' | 'throw' = () => 'done') {
  const batches: string[][] = [];
  const alone: string[] = [];
  const kind: BatchedWrite<string, string> = {
    maxBatch: 3,
    lanes: 1,
    async together(db, keys) {
      batches.push([...keys]);
      if (keys.some((key) => outcomeOf(key, batches.length) === 'throw')) throw new Error('the batch failed');
      const outcomes = keys.map((key): TogetherOutcome<string> => {
        const decided = outcomeOf(key, batches.length);
        return decided === 'done' ? { kind: 'done', value: `together ${key}` } : { kind: decided === 'later' ? 'later' : 'alone' };
      });
      const written = keys.filter((_, i) => outcomes[i]?.kind === 'done');
      if (written.length > 0) await db.insertInto('settings').values(written.map((key) => ({ key, value: 'together' }))).execute();
      return { outcomes, events: [] };
    },
    async alone(tx, key) {
      alone.push(key);
      if (key === 'bad') throw new Error('bad key');
      await tx.insertInto('settings').values({ key, value: 'alone' }).execute();
      return `alone ${key}`;
    },
  };
  return { kind, batches, alone };
}

const stored = async (db: Db): Promise<string[][]> =>
  (await db.selectFrom('settings').select(['key', 'value']).where('value', 'in', ['together', 'alone']).orderBy('key').execute()).map((r) => [r.key, r.value]);

test('items written in the same turn go in batches of at most maxBatch, each answered its own value', async (t) => {
  const { db, committer } = await openCommitter(t);
  const { kind, batches } = settingsKind();

  const answers = await Promise.all(['a', 'b', 'c', 'd'].map((key) => committer.writeTogether(kind, key)));

  assert.deepStrictEqual(answers, ['together a', 'together b', 'together c', 'together d']);
  assert.deepStrictEqual(batches, [['a', 'b', 'c'], ['d']]);
  assert.deepStrictEqual(await stored(db), [['a', 'together'], ['b', 'together'], ['c', 'together'], ['d', 'together']]);
});

test('an item put back for later is written in the next batch', async (t) => {
  const { committer } = await openCommitter(t);
  const { kind, batches } = settingsKind((key, batch) => (key === 'b' && batch === 1 ? 'later' : 'done'));

  const answers = await Promise.all(['a', 'b'].map((key) => committer.writeTogether(kind, key)));

  assert.deepStrictEqual(answers, ['together a', 'together b']);
  assert.deepStrictEqual(batches, [['a', 'b'], ['b']]);
});

test('an item the batch cannot take is written alone, as a unit of work of the committer', async (t) => {
  const { db, committer } = await openCommitter(t);
  const { kind, alone } = settingsKind((key) => (key === 'b' ? 'alone' : 'done'));

  const answers = await Promise.all(['a', 'b'].map((key) => committer.writeTogether(kind, key)));

  assert.deepStrictEqual(answers, ['together a', 'alone b']);
  assert.deepStrictEqual(alone, ['b']);
  assert.deepStrictEqual(await stored(db), [['a', 'together'], ['b', 'alone']]);
});

test('a batch that fails is written item by item alone, and an item that fails alone fails by itself', async (t) => {
  const { db, committer } = await openCommitter(t);
  const { kind } = settingsKind((key) => (key === 'bad' ? 'throw' : 'done'));

  const answers = await Promise.allSettled(['a', 'bad', 'c'].map((key) => committer.writeTogether(kind, key)));

  assert.deepStrictEqual(answers.map((a) => (a.status === 'fulfilled' ? a.value : (a.reason as Error).message)), ['alone a', 'bad key', 'alone c']);
  assert.deepStrictEqual(await stored(db), [['a', 'alone'], ['c', 'alone']]);
});

test('a committer that is closed answers later items with StoreClosed', async (t) => {
  const { committer } = await openCommitter(t);
  const { kind, batches } = settingsKind();
  await committer.close();

  await assert.rejects(committer.writeTogether(kind, 'a'), StoreClosed);
  assert.deepStrictEqual(batches, []);
});

test('the items of one batch that share an onWritten call it once; an item written alone calls its own', async (t) => {
  const { committer } = await openCommitter(t);
  const { kind } = settingsKind((key) => (key === 'c' ? 'alone' : 'done'));
  const calls: string[] = [];
  const shared = () => calls.push('shared');

  await Promise.all([committer.writeTogether(kind, 'a', shared), committer.writeTogether(kind, 'b', shared), committer.writeTogether(kind, 'c', () => calls.push('c'))]);

  assert.deepStrictEqual(calls.sort(), ['c', 'shared']);
});
