// The group committer on PostgreSQL (store/group-commit.ts, as service.ts configures it):
// concurrent units of work share transactions, a unit that throws is undone alone, and a
// unit waiting on another transaction's lock holds its batch only for the bounded wait,
// then runs by itself and commits once the lock is free. Each test gets a fresh schema.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { openStore } from '../../../src/store/dialect.ts';
import { isPostgresLockLoss } from '../../../src/store/postgres/connection.ts';
import { groupCommitter } from '../../../src/store/group-commit.ts';
import { migrateToLatest } from '../../../src/store/migrate.ts';
import type { Db, Tx } from '../../../src/store/database.ts';
import { debitBalanceWithEntry, debitMessagesWithEntry, insertAccount } from '../../../src/store/accounts.ts';
import { freshSchema, TEST_POSTGRES_URL } from '../../support/postgres.ts';

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

// The batch's debits taken once per account at its end (GroupCommitOptions.deferDebits, store/batch-debits.ts).

async function accountWith(db: Db, id: string, messagesLeft: number): Promise<void> {
  await insertAccount(db, id, 1, { name: id, messagesLeft });
}

/** A send's debit as send-charge.ts takes it, then a statement after it (as an Idempotency-Key's answer is stored). */
const debitUnit = (accountId: string, count: number, n: number) => async (tx: Tx): Promise<number> => {
  const debited = await debitMessagesWithEntry(tx, {
    id: `l${String(n).padStart(3, '0')}`, accountId, at: 10 + n, messagesDelta: -count, balanceDelta: 0, reason: 'sms.send', sendId: `s${n}`,
  }, 10 + n);
  if (debited === null) throw new Error(`unit ${n}: no messages left`);
  await tx.insertInto('settings').values({ key: `after-${String(n).padStart(3, '0')}`, value: String(debited.messagesLeft) }).execute();
  return debited.messagesLeft;
};

test('deferred debits: each unit is answered what was left after it, as if debited one by one; one ledger entry per unit', { skip }, async (t) => {
  const { db } = await openDb(t);
  await accountWith(db, 'acc-a', 100);
  await accountWith(db, 'acc-b', 50);
  const batches: number[] = [];
  const committer = groupCommitter(db, { maxBatch: 32, lanes: 1, lockWait: LOCK_WAIT, deferDebits: true, onBatch: (units) => batches.push(units) });
  // Alternating accounts, amounts 1..3.
  const results = await Promise.all(Array.from({ length: 20 }, (_, n) => committer.run(debitUnit(n % 2 === 0 ? 'acc-a' : 'acc-b', 1 + (n % 3), n))));
  const expected: number[] = [];
  const left = new Map([['acc-a', 100], ['acc-b', 50]]);
  for (let n = 0; n < 20; n += 1) {
    const id = n % 2 === 0 ? 'acc-a' : 'acc-b';
    left.set(id, (left.get(id) ?? 0) - (1 + (n % 3)));
    expected.push(left.get(id) ?? 0);
  }
  assert.deepStrictEqual(results, expected);
  assert.ok(batches.length < 20, `batches: ${batches.join(', ')}`);
  const accounts = await db.selectFrom('accounts').select(['id', 'messages_left']).orderBy('id').execute();
  assert.deepStrictEqual(accounts.map((a) => [a.id, Number(a.messages_left)]), [['acc-a', left.get('acc-a')], ['acc-b', left.get('acc-b')]]);
  const ledger = await db.selectFrom('ledger').select(['id', 'account_id', 'messages_delta', 'send_id', 'at']).orderBy('id').execute();
  assert.deepStrictEqual(ledger.map((e) => [e.id, e.account_id, Number(e.messages_delta), e.send_id, Number(e.at)]),
    Array.from({ length: 20 }, (_, n) => [`l${String(n).padStart(3, '0')}`, n % 2 === 0 ? 'acc-a' : 'acc-b', -(1 + (n % 3)), `s${n}`, 10 + n]));
  // The statement after each debit saw the unit's own answer.
  const after = await db.selectFrom('settings').select(['key', 'value']).where('key', 'like', 'after-%').orderBy('key').execute();
  assert.deepStrictEqual(after.map((row) => Number(row.value)), expected);
});

test('deferred debits: when an account cannot cover the batch\'s total, each unit gets its exact own answer (the per-unit path)', { skip }, async (t) => {
  const { db } = await openDb(t);
  await accountWith(db, 'acc-a', 5);
  const committer = groupCommitter(db, { maxBatch: 32, lanes: 1, lockWait: LOCK_WAIT, deferDebits: true });
  const outcomes = await Promise.allSettled(Array.from({ length: 8 }, (_, n) => committer.run(debitUnit('acc-a', 1, n))));
  assert.deepStrictEqual(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : String(o.reason))), [
    4, 3, 2, 1, 0, 'Error: unit 5: no messages left', 'Error: unit 6: no messages left', 'Error: unit 7: no messages left',
  ]);
  const account = await db.selectFrom('accounts').select('messages_left').where('id', '=', 'acc-a').executeTakeFirstOrThrow();
  assert.equal(Number(account.messages_left), 0);
  const ledger = await db.selectFrom('ledger').select('send_id').orderBy('id').execute();
  assert.deepStrictEqual(ledger.map((e) => e.send_id), ['s0', 's1', 's2', 's3', 's4']);
  assert.equal((await keysLike(db, 'after-')).length, 5);
});

test('deferred debits: the account row is locked only once every unit of the batch has run up to its debit', { skip }, async (t) => {
  const { db, url } = await openDb(t);
  await accountWith(db, 'acc-a', 100);
  const probe = new pg.Client({ connectionString: url });
  await probe.connect();
  t.after(() => probe.end());
  // Whether another transaction could lock the account row right now.
  const rowFree = async (): Promise<boolean> => {
    await probe.query('begin');
    try {
      await probe.query(`select 1 from accounts where id = 'acc-a' for update nowait`);
      return true;
    } catch {
      return false;
    } finally {
      await probe.query('rollback');
    }
  };
  const committer = groupCommitter(db, { maxBatch: 32, lanes: 1, lockWait: LOCK_WAIT, deferDebits: true });
  const seen: boolean[] = [];
  const results = await Promise.all(Array.from({ length: 6 }, (_, n) => committer.run(async (tx) => {
    // Before this unit's debit: the earlier units' debits are not taken yet.
    seen.push(await rowFree());
    return debitUnit('acc-a', 1, n)(tx);
  })));
  assert.deepStrictEqual(results, [99, 98, 97, 96, 95, 94]);
  assert.deepStrictEqual(seen, [true, true, true, true, true, true]);
});

test('deferred debits: messages and money of one account in one batch, each unit answered its own figure; money short reruns per unit', { skip }, async (t) => {
  const { db } = await openDb(t);
  await insertAccount(db, 'acc-m', 1, { name: 'acc-m', messagesLeft: 10, balance: 100 });
  const committer = groupCommitter(db, { maxBatch: 32, lanes: 1, lockWait: LOCK_WAIT, deferDebits: true });
  const moneyUnit = (amount: number, n: number) => async (tx: Tx): Promise<string> => {
    const debited = await debitBalanceWithEntry(tx, {
      id: `l${String(n).padStart(3, '0')}`, accountId: 'acc-m', at: 10 + n, messagesDelta: 0, balanceDelta: -amount, reason: 'whatsapp.send', sendId: `s${n}`,
    }, 10 + n);
    if (debited === null) throw new Error(`unit ${n}: insufficient balance`);
    return `balance ${debited.balance}`;
  };
  const first = await Promise.all([
    committer.run(debitUnit('acc-m', 2, 0)), committer.run(moneyUnit(30, 1)), committer.run(debitUnit('acc-m', 3, 2)), committer.run(moneyUnit(30, 3)),
  ]);
  assert.deepStrictEqual(first, [8, 'balance 70', 5, 'balance 40']);
  // 40 left: the third 30 passes alone in order, the fourth is refused; the message debit between them is unaffected.
  const second = await Promise.allSettled([
    committer.run(moneyUnit(30, 4)), committer.run(debitUnit('acc-m', 1, 5)), committer.run(moneyUnit(30, 6)),
  ]);
  assert.deepStrictEqual(second.map((o) => (o.status === 'fulfilled' ? o.value : String(o.reason))), ['balance 10', 4, 'Error: unit 6: insufficient balance']);
  const account = await db.selectFrom('accounts').select(['messages_left', 'balance']).where('id', '=', 'acc-m').executeTakeFirstOrThrow();
  assert.deepStrictEqual([Number(account.messages_left), Number(account.balance)], [4, 10]);
  const ledger = await db.selectFrom('ledger').select(['send_id', 'messages_delta', 'balance_delta']).orderBy('id').execute();
  assert.deepStrictEqual(ledger.map((e) => [e.send_id, Number(e.messages_delta), Number(e.balance_delta)]), [
    ['s0', -2, 0], ['s1', 0, -30], ['s2', -3, 0], ['s3', 0, -30], ['s4', 0, -30], ['s5', -1, 0],
  ]);
});
