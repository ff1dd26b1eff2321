// The engine seam's batch operations (store/engine.ts), one behaviour per test, the same
// on both engines: SQLite here, PostgreSQL through `node test/run-postgres.ts` (the
// service's store is whichever HERALD_TEST_STORE names). Each runs in a transaction of
// its own, as the group committer would run it.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { uuidv7 } from '../../src/app/uuidv7-source.ts';
import { insertAccount } from '../../src/store/accounts.ts';
import type { Db } from '../../src/store/database.ts';
import { batchOperationsOf, type AttemptOutcome } from '../../src/store/engine.ts';
import { insertSend } from '../../src/store/messages.ts';
import { startService } from '../support/service.ts';

const NOW = Date.UTC(2026, 0, 1);
const OWNER = 'worker-1';

async function storeWithAccount(t: TestContext, figures: { messagesLeft?: number; balance?: number } = {}): Promise<Db> {
  const { db } = (await startService(t)).store;
  await insertAccount(db, 'acc-1', NOW, { name: 'acc-1', ...figures });
  return db;
}

/** A queued message of acc-1, its outbox row leased by `owner`. */
async function leasedMessage(db: Db, owner: string): Promise<string> {
  const id = uuidv7();
  await insertSend(db, { id: uuidv7(), accountId: 'acc-1', channel: 'sms', payload: {}, now: NOW, eventIds: uuidv7 }, [
    { id, recipient: '+15550000001', role: 'to', costMessages: 1, costBalance: 0 },
  ]);
  await db.updateTable('messages').set({ status: 'sending' }).where('id', '=', id).execute();
  await db.updateTable('outbox').set({ lease_owner: owner, lease_expires_at: NOW + 60_000, claimed_at: NOW }).where('message_id', '=', id).execute();
  return id;
}

const outcome = (messageId: string, owner: string) => ({
  messageId, owner, status: 'sent' as const, eventId: uuidv7(), at: NOW + 5, data: { peer: 'smsc' }, providerRef: 'ref-1', sendingAt: NOW,
});

test('ending a held lease removes the outbox row, moves the message and records the event', async (t) => {
  const db = await storeWithAccount(t);
  const id = await leasedMessage(db, OWNER);

  const effects = await db.transaction().execute((tx) => batchOperationsOf(tx).endLease(tx, outcome(id, OWNER)));

  assert.deepStrictEqual(effects, { moved: true, webhookQueued: false });
  assert.equal((await db.selectFrom('outbox').select('message_id').where('message_id', '=', id).execute()).length, 0);
  const message = await db.selectFrom('messages').select(['status', 'provider_ref']).where('id', '=', id).executeTakeFirstOrThrow();
  assert.deepStrictEqual([message.status, message.provider_ref], ['sent', 'ref-1']);
  const events = await db.selectFrom('message_events').select(['type', 'at', 'sending_at']).where('message_id', '=', id).execute();
  assert.deepStrictEqual(events.map((e) => [e.type, Number(e.at), Number(e.sending_at)]), [['sent', NOW + 5, NOW]]);
});

test('ending a lease another worker holds writes nothing and answers null', async (t) => {
  const db = await storeWithAccount(t);
  const id = await leasedMessage(db, 'worker-2');

  const effects = await db.transaction().execute((tx) => batchOperationsOf(tx).endLease(tx, outcome(id, OWNER)));

  assert.equal(effects, null);
  assert.equal((await db.selectFrom('outbox').select('message_id').where('message_id', '=', id).execute()).length, 1);
  assert.equal((await db.selectFrom('messages').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status, 'sending');
  assert.equal((await db.selectFrom('message_events').select('id').where('message_id', '=', id).execute()).length, 0);
});

test('ending a lease with a retry time keeps the outbox row, due then and free of its lease', async (t) => {
  const db = await storeWithAccount(t);
  const id = await leasedMessage(db, OWNER);

  await db.transaction().execute((tx) => batchOperationsOf(tx).endLease(tx, { ...outcome(id, OWNER), status: 'deferred', retryAt: NOW + 30_000 }));

  const row = await db.selectFrom('outbox').select(['available_at', 'lease_owner', 'lease_expires_at', 'claimed_at']).where('message_id', '=', id).executeTakeFirstOrThrow();
  assert.deepStrictEqual([Number(row.available_at), row.lease_owner, row.lease_expires_at, row.claimed_at], [NOW + 30_000, null, null, null]);
});

/** A pending webhook delivery of acc-1 leased by `owner`. */
async function leasedDelivery(db: Db, owner: string): Promise<string> {
  const id = uuidv7();
  await db.insertInto('webhook_deliveries').values({
    id, account_id: 'acc-1', message_id: null, type: 'sms.sent', payload: '{}', status: 'pending', attempts: 0, next_attempt_at: NOW,
    lease_owner: owner, lease_expires_at: NOW + 60_000, last_status_code: null, last_error: null, created_at: NOW, updated_at: NOW,
  }).execute();
  return id;
}

const attempt = (deliveryId: string, fields: Partial<AttemptOutcome> = {}): AttemptOutcome => ({
  deliveryId, attempts: 1, at: NOW + 1, url: 'https://hooks.example.com/h', statusCode: 200, error: null, durationMs: 12, next: { status: 'succeeded' }, ...fields,
});

test('recording attempts moves only the deliveries the owner still leases, each with its attempt row', async (t) => {
  const db = await storeWithAccount(t);
  const held = await leasedDelivery(db, OWNER);
  const retried = await leasedDelivery(db, OWNER);
  const lost = await leasedDelivery(db, 'dispatcher-2');
  const records = [attempt(held), attempt(retried, { statusCode: 503, next: { status: 'pending', nextAttemptAt: NOW + 60_000 } }), attempt(lost)];

  const recorded = await db.transaction().execute((tx) => batchOperationsOf(tx).recordAttempts(tx, OWNER, records, { now: NOW + 2, newId: uuidv7 }));

  assert.deepStrictEqual(recorded, new Set([held, retried]));
  const rows = await db.selectFrom('webhook_deliveries').select(['id', 'status', 'attempts', 'next_attempt_at', 'last_status_code', 'lease_owner']).execute();
  const byId = new Map(rows.map((r) => [r.id, [r.status, r.attempts, Number(r.next_attempt_at), r.last_status_code, r.lease_owner]]));
  assert.deepStrictEqual(byId.get(held), ['succeeded', 1, NOW, 200, null]);
  assert.deepStrictEqual(byId.get(retried), ['pending', 1, NOW + 60_000, 503, null]);
  assert.deepStrictEqual(byId.get(lost), ['pending', 0, NOW, null, 'dispatcher-2']);
  const attempts = await db.selectFrom('webhook_attempts').select('delivery_id').orderBy('delivery_id').execute();
  assert.deepStrictEqual(attempts.map((a) => a.delivery_id), [held, retried].sort());
});

test('an attempt that posted nothing moves its delivery without an attempt row', async (t) => {
  const db = await storeWithAccount(t);
  const id = await leasedDelivery(db, OWNER);

  await db.transaction().execute((tx) => batchOperationsOf(tx).recordAttempts(tx, OWNER, [attempt(id, { url: null, statusCode: null, next: { status: 'failed' } })], { now: NOW, newId: uuidv7 }));

  assert.equal((await db.selectFrom('webhook_deliveries').select('status').executeTakeFirstOrThrow()).status, 'failed');
  assert.equal((await db.selectFrom('webhook_attempts').select('id').execute()).length, 0);
});

const debit = (messagesDelta: number, balanceDelta: number) => ({ id: uuidv7(), accountId: 'acc-1', at: NOW, messagesDelta, balanceDelta, reason: 'sms.send' as const, sendId: 'send-1' });

test('a message debit the account covers takes the messages and writes its ledger entry', async (t) => {
  const db = await storeWithAccount(t, { messagesLeft: 5 });

  const left = await db.transaction().execute((tx) => batchOperationsOf(tx).debitMessagesWithEntry(tx, debit(-2, 0), NOW));

  assert.deepStrictEqual(left, { messagesLeft: 3 });
  const ledger = await db.selectFrom('ledger').select(['messages_delta', 'send_id']).execute();
  assert.deepStrictEqual(ledger.map((e) => [Number(e.messages_delta), e.send_id]), [[-2, 'send-1']]);
});

test('a message debit the account cannot cover takes nothing, writes no entry and answers null', async (t) => {
  const db = await storeWithAccount(t, { messagesLeft: 1 });

  const left = await db.transaction().execute((tx) => batchOperationsOf(tx).debitMessagesWithEntry(tx, debit(-2, 0), NOW));

  assert.equal(left, null);
  assert.equal(Number((await db.selectFrom('accounts').select('messages_left').executeTakeFirstOrThrow()).messages_left), 1);
  assert.equal((await db.selectFrom('ledger').select('id').execute()).length, 0);
});

test('a money debit the account covers takes the amount and writes its ledger entry; one it cannot cover answers null', async (t) => {
  const db = await storeWithAccount(t, { balance: 10_000 });
  const take = () => db.transaction().execute((tx) => batchOperationsOf(tx).debitBalanceWithEntry(tx, debit(0, -7_500), NOW));

  assert.deepStrictEqual(await take(), { balance: 2_500 });
  assert.equal(await take(), null);
  const ledger = await db.selectFrom('ledger').select('balance_delta').execute();
  assert.deepStrictEqual(ledger.map((e) => Number(e.balance_delta)), [-7_500]);
});

test('a send\'s rows go in whole, one send or many, each message queued in the outbox', async (t) => {
  const db = await storeWithAccount(t);
  const row = (sendId: string) => [sendId, 'acc-1', 'sms', '{}', NOW, 'transactional', null, 0, 0, 0, null, null, 'api', null, null];
  const message = (id: string, sendId: string) => [id, 'acc-1', sendId, 'sms', '+1555', 'to', 'queued', 1, 0, NOW, NOW, null, null, 'live', null];
  const ids = [uuidv7(), uuidv7(), uuidv7()];

  await db.transaction().execute(async (tx) => {
    await batchOperationsOf(tx).insertSendRows(tx, { sends: [row('s1')], messages: [message(ids[0]!, 's1'), message(ids[1]!, 's1')], outbox: [[ids[0], 'sms', NOW, 0], [ids[1], 'sms', NOW, 0]] }, true);
    await batchOperationsOf(tx).insertSendRows(tx, { sends: [row('s2')], messages: [message(ids[2]!, 's2')], outbox: [[ids[2], 'sms', NOW, 0]] }, false);
  });

  const queued = await db.selectFrom('outbox').innerJoin('messages', 'messages.id', 'outbox.message_id').select(['messages.id', 'messages.send_id']).orderBy('messages.id').execute();
  assert.deepStrictEqual(queued.map((m) => [m.id, m.send_id]), [[ids[0], 's1'], [ids[1], 's1'], [ids[2], 's2']]);
});
