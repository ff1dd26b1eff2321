// The PostgreSQL store itself: numbers come back as numbers, outbox claims share the
// queue without overlap (SKIP LOCKED) and take over expired leases, LISTEN/NOTIFY wakes
// other processes, migrations run side by side, and two API processes on one database
// never overdraw an account. Each test gets a fresh schema of TEST_POSTGRES_URL; every
// pool below is its own set of connections, as another process would have.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import pg from 'pg';
import { uuidv7 } from '../../../src/app/uuidv7-source.ts';
import { loadConfig } from '../../../src/config.ts';
import { claimDue } from '../../../src/queue/outbox/claim.ts';
import { recordOutcome } from '../../../src/queue/outbox/complete.ts';
import { createService, type Service } from '../../../src/service.ts';
import { findAccount, insertAccount } from '../../../src/store/accounts.ts';
import { openStore, type OpenedStore } from '../../../src/store/dialect.ts';
import { listLedger } from '../../../src/store/ledger.ts';
import { insertSend } from '../../../src/store/messages.ts';
import { MIGRATION_NAMES, migrateToLatest } from '../../../src/store/migrate.ts';
import { WEBHOOK_WAKE } from '../../../src/queue/webhooks/dispatcher.ts';
import { OUTBOX_WAKE } from '../../../src/store/notify.ts';
import { freshSchema, TEST_POSTGRES_URL } from '../../support/postgres.ts';
import { ADMIN_TOKEN, emailBody, openAccount, post } from '../../support/service.ts';

const skip = TEST_POSTGRES_URL === undefined ? 'TEST_POSTGRES_URL is not set' : false;
const NOW = Date.UTC(2026, 0, 1);

/** A fresh schema and the stores and services opened on it, closed (then the schema dropped) when the test ends. */
async function schemaFor(t: TestContext) {
  const schema = await freshSchema();
  const closers: (() => Promise<void>)[] = [];
  t.after(async () => {
    for (const close of closers.reverse()) await close();
    await schema.drop();
  });
  return {
    schema,
    /** A store of its own pool, migrated; `lockTimeoutMs` makes a statement that waits on a lock that long fail. */
    async open(options: { poolSize?: number; migrate?: boolean; lockTimeoutMs?: number } = {}): Promise<OpenedStore> {
      const url = new URL(schema.url);
      if (options.lockTimeoutMs !== undefined) url.searchParams.set('options', `${url.searchParams.get('options') ?? ''} -c lock_timeout=${options.lockTimeoutMs}`);
      const store = openStore(url.href, options);
      closers.push(() => store.db.destroy());
      if (options.migrate !== false) await migrateToLatest(store.db);
      return store;
    },
    async service(options: { worker: boolean; pollMs?: number }): Promise<Service> {
      const config = loadConfig({ HERALD_DATABASE_URL: schema.url, HERALD_ADMIN_TOKEN: ADMIN_TOKEN });
      const service = await createService(config, { logger: false, worker: options.worker, workerOptions: { pollMs: options.pollMs ?? 1000 } });
      closers.push(() => service.close());
      return service;
    },
  };
}

/** An account and one email send with `count` queued messages (and their outbox rows); returns the message ids. */
async function queueEmails(store: OpenedStore, count: number): Promise<string[]> {
  const accountId = uuidv7();
  await insertAccount(store.db, accountId, NOW, { name: 'acme', messagesLeft: count });
  const ids = Array.from({ length: count }, () => uuidv7());
  await insertSend(
    store.db,
    { id: uuidv7(), accountId, channel: 'email', payload: {}, now: NOW, eventIds: uuidv7 },
    ids.map((id, i) => ({ id, recipient: `user${i}@example.org`, role: 'to' as const, costMessages: 1, costBalance: 0 })),
  );
  return ids;
}

/** A plain connection to the test database, for looking at and killing other connections. */
async function adminClient(t: TestContext): Promise<pg.Client> {
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  t.after(() => admin.end());
  return admin;
}

/** The backends whose last statement was the LISTEN of `channel`: the listening connections. */
async function listenerPids(admin: pg.Client, channel: string): Promise<number[]> {
  const { rows } = await admin.query<{ pid: number }>('select pid from pg_stat_activity where query = $1', [`LISTEN "${channel}"`]);
  return rows.map((r) => r.pid);
}

function until(condition: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  const check = async (): Promise<boolean> => {
    if (await condition()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
    return check();
  };
  return check();
}

test('bigint columns, count(*) and sum() come back as JavaScript numbers', { skip }, async (t) => {
  const store = await (await schemaFor(t)).open();
  const id = uuidv7();
  const created = Date.UTC(2026, 4, 17, 12, 30, 45, 123);
  await insertAccount(store.db, id, created, { name: 'big', messagesLeft: 2 ** 40, balance: 9_007_199_254_740_991 });
  await queueEmails(store, 3);

  const account = await findAccount(store.db, id);
  const raw = await store.db.selectFrom('accounts').select(['messages_left', 'balance', 'created_at']).where('id', '=', id).executeTakeFirstOrThrow();
  const totals = await store.db
    .selectFrom('messages')
    .select((eb) => [eb.fn.countAll().as('count'), eb.fn.sum('cost_messages').as('sum')])
    .executeTakeFirstOrThrow();

  assert.deepStrictEqual(raw, { messages_left: 2 ** 40, balance: 9_007_199_254_740_991, created_at: created });
  assert.equal(account?.createdAt, created);
  assert.deepStrictEqual(totals, { count: 3, sum: 3 });
});

test('a boolean parameter is stored in a 0/1 flag column as 0 or 1, as on SQLite', { skip }, async (t) => {
  const store = await (await schemaFor(t)).open();
  const id = uuidv7();
  await insertAccount(store.db, id, NOW, { name: 'flags' });
  await sql`update accounts set active = ${false} where id = ${id}`.execute(store.db);
  assert.equal((await store.db.selectFrom('accounts').select('active').where('id', '=', id).executeTakeFirstOrThrow()).active, 0);
});

test('a text with a NUL character, which PostgreSQL text cannot hold, is stored with U+FFFD in its place', { skip }, async (t) => {
  const store = await (await schemaFor(t)).open();
  const id = uuidv7();
  await insertAccount(store.db, id, NOW, { name: 'a\u0000b' });
  assert.equal((await findAccount(store.db, id))?.name, 'a\uFFFDb');
});

test('two claimers never get the same row: a row locked by one is skipped by the other, not waited for', { skip }, async (t) => {
  const on = await schemaFor(t);
  const first = await on.open();
  // Without SKIP LOCKED the second claim would wait for the first transaction, which waits for it: the lock time-out fails it.
  const second = await on.open({ migrate: false, lockTimeoutMs: 2000 });
  const ids = await queueEmails(first, 10);
  const lease = { now: NOW, leaseMs: 60_000, limit: 10, channel: 'email' as const };

  let secondClaimed: string[] = [];
  await first.db.transaction().execute(async (tx) => {
    // The first claimer is mid-transaction holding the five oldest rows.
    const held = await tx.selectFrom('outbox').select('message_id').orderBy('available_at').orderBy('message_id').limit(5).forUpdate().execute();
    assert.equal(held.length, 5);
    const claimed = await claimDue(second.db, second.capabilities, { ...lease, owner: 'second' }, uuidv7);
    secondClaimed = claimed.map((m) => m.msgid);
    const heldIds = new Set(held.map((r) => r.message_id));
    assert.deepStrictEqual(secondClaimed.filter((id) => heldIds.has(id)), []);
  });

  assert.equal(secondClaimed.length, 5);
  const rest = await claimDue(first.db, first.capabilities, { ...lease, owner: 'first' }, uuidv7);
  assert.deepStrictEqual(new Set([...secondClaimed, ...rest.map((m) => m.msgid)]), new Set(ids));
});

test('four claimers racing over 400 rows claim each row exactly once', { skip }, async (t) => {
  const on = await schemaFor(t);
  const stores = [await on.open({ poolSize: 2 })];
  for (let i = 1; i < 4; i += 1) stores.push(await on.open({ poolSize: 2, migrate: false }));
  const ids = await queueEmails(stores[0]!, 400);

  const claims = await Promise.all(stores.map(async (store, i) => {
    const mine: string[] = [];
    for (;;) {
      const claimed = await claimDue(store.db, store.capabilities, { owner: `claimer-${i}`, now: NOW, leaseMs: 60_000, limit: 7, channel: 'email' }, uuidv7);
      if (claimed.length === 0) return mine;
      mine.push(...claimed.map((m) => m.msgid));
    }
  }));

  const all = claims.flat();
  assert.equal(all.length, 400);
  assert.deepStrictEqual(new Set(all), new Set(ids));
  assert.ok(claims.filter((c) => c.length > 0).length >= 2, 'the claimers shared the queue');
  const attempts = await stores[0]!.db.selectFrom('outbox').select('attempts').distinct().execute();
  assert.deepStrictEqual(attempts, [{ attempts: 1 }]);
});

test('a lease that expires is taken over by another process, and the first owner\'s late outcome is refused', { skip }, async (t) => {
  const on = await schemaFor(t);
  const dead = await on.open();
  const successor = await on.open({ migrate: false });
  const [msgid] = await queueEmails(dead, 1);
  const lease = { leaseMs: 60_000, limit: 10, channel: 'email' as const };

  const [claimedByDead] = await claimDue(dead.db, dead.capabilities, { ...lease, owner: 'dead', now: NOW }, uuidv7);
  assert.equal(claimedByDead?.msgid, msgid);
  assert.deepStrictEqual(await claimDue(successor.db, successor.capabilities, { ...lease, owner: 'successor', now: NOW + 59_999 }, uuidv7), []);
  const [takenOver] = await claimDue(successor.db, successor.capabilities, { ...lease, owner: 'successor', now: NOW + 60_000 }, uuidv7);
  assert.equal(takenOver?.msgid, msgid);
  assert.equal(takenOver?.attempt, 2);

  const late = await recordOutcome({ db: dead.db, clock: () => NOW + 61_000, newId: uuidv7 }, 'dead', claimedByDead!, { kind: 'accepted', peer: 'x', response: 'late' });
  assert.equal(late, 'lease-lost');
  const done = await recordOutcome({ db: successor.db, clock: () => NOW + 61_000, newId: uuidv7 }, 'successor', takenOver!, { kind: 'accepted', peer: 'x', response: '250 ok' });
  assert.equal(done, 'sent');
});

test('a NOTIFY through one pool wakes a listener on another connection, with its payload', { skip }, async (t) => {
  const on = await schemaFor(t);
  const listener = await on.open();
  const notifier = await on.open({ migrate: false });
  const woken: string[] = [];
  const listening = new Promise<void>((resolve) => {
    const stop = listener.notifier.listen('herald_test', (payload) => {
      woken.push(payload);
      resolve();
    });
    t.after(stop);
  });
  // LISTEN is set up asynchronously; notify until the first one is heard.
  const started = Date.now();
  while (woken.length === 0 && Date.now() - started < 5000) {
    notifier.notifier.notify('herald_test', 'sms');
    await Promise.race([listening, new Promise((resolve) => setTimeout(resolve, 20))]);
  }
  assert.equal(woken[0], 'sms');
});

test('the listener reconnects when its connection is killed, wakes everyone once, and hears later notifications', { skip }, async (t) => {
  const on = await schemaFor(t);
  const listener = await on.open();
  const notifier = await on.open({ migrate: false });
  const woken: string[] = [];
  t.after(listener.notifier.listen('herald_test', (payload) => woken.push(payload)));
  const admin = await adminClient(t);
  const channel = `${on.schema.name}.herald_test`;

  assert.ok(await until(async () => (await listenerPids(admin, channel)).length === 1, 5000), 'listening');
  await admin.query('select pg_terminate_backend($1)', [(await listenerPids(admin, channel))[0]]);

  assert.ok(await until(async () => woken.includes(''), 5000), 'woken after the reconnect');
  assert.ok(await until(async () => {
    notifier.notifier.notify('herald_test', 'again');
    return woken.includes('again');
  }, 5000), 'a later notification is heard');
});

test('a send through one process wakes the idle worker of another at once, long before its poll', { skip }, async (t) => {
  const on = await schemaFor(t);
  const admin = await adminClient(t);
  await on.service({ worker: true, pollMs: 60_000 });
  const api = await on.service({ worker: false });
  const account = await openAccount(api, { messagesLeft: 5 });
  // The listener connection LISTENs on the outbox channel, then the webhook one (the order
  // the service registers them): pg_stat_activity shows the last, and either means the
  // outbox LISTEN is in place.
  const listening = async () => (await listenerPids(admin, `${on.schema.name}.${OUTBOX_WAKE}`)).length
    + (await listenerPids(admin, `${on.schema.name}.${WEBHOOK_WAKE}`)).length === 1;
  assert.ok(await until(listening, 5000), 'the worker listens');

  const sent = Date.now();
  const res = await post(api, '/v1/email', account.apiKey, emailBody());
  assert.equal(res.statusCode, 200);
  const msgid: string = res.json().to[0].msgid;
  const delivered = async () => (await api.store.db.selectFrom('messages').select('status').where('id', '=', msgid).executeTakeFirstOrThrow()).status === 'sent';
  assert.ok(await until(delivered, 10_000), 'delivered');
  // The worker polls once a minute: only the notification can have woken it this soon.
  const elapsed = Date.now() - sent;
  assert.ok(elapsed < 5_000, `delivered after ${elapsed} ms`);
});

test('four processes migrating one empty schema at once leave it migrated once', { skip }, async (t) => {
  const on = await schemaFor(t);
  const stores = await Promise.all(Array.from({ length: 4 }, () => on.open({ migrate: false })));
  await Promise.all(stores.map((store) => migrateToLatest(store.db)));
  const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(stores[0]!.db);
  assert.deepStrictEqual(applied.rows.map((r) => r.name), MIGRATION_NAMES);
});

test('a schema is migrated on its own even when another schema of the database is migrated already', { skip }, async (t) => {
  const other = await schemaFor(t);
  await other.open();
  const store = await (await schemaFor(t)).open();
  const tables = await store.db.introspection.getTables();
  assert.ok(tables.some((table) => table.name === 'outbox'));
  assert.ok(tables.every((table) => table.schema === tables[0]?.schema));
});

test('200 simultaneous emails over two API processes on 50 messages left: exactly 50 accepted, the ledger sums to 0', { skip }, async (t) => {
  const on = await schemaFor(t);
  const first = await on.service({ worker: false });
  const second = await on.service({ worker: false });
  const account = await openAccount(first, { messagesLeft: 50, rateLimitPerSecond: 1000 });

  const responses = await Promise.all(Array.from({ length: 200 }, (_, i) =>
    post(i % 2 === 0 ? first : second, '/v1/email', account.apiKey, emailBody({ to: [{ email: `user${i}@example.org` }] }))));

  assert.equal(responses.filter((r) => r.statusCode === 200).length, 50);
  assert.equal(responses.filter((r) => r.statusCode === 401).length, 150);
  assert.equal((await findAccount(first.store.db, account.id))?.messagesLeft, 0);
  const ledger = await listLedger(second.store.db, account.id);
  assert.equal(ledger.reduce((sum, e) => sum + e.messagesDelta, 0), 0);
  assert.equal(ledger.filter((e) => e.reason === 'email.send').length, 50);
});
