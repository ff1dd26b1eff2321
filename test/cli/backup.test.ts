// Issue 21 item 6: `herald backup` copies a SQLite store online (0600) into a copy that
// starts with delivery held; `serve --paused` holds the outbox until `herald outbox
// release` (store files tightened at start: test/store/sqlite/file-modes.test.ts).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test, type TestContext } from 'node:test';
import { heraldCli } from '../support/child-process.ts';
import { startHerald } from '../support/herald-process.ts';
import { emailBody, get, openAccount, post, sharedStore, startService } from '../support/service.ts';
import { call, startWebhookReceiver, subscribe } from '../peers/webhook-receiver.ts';
import { releaseDelivery } from '../../src/app/delivery-hold.ts';
import type { Service } from '../../src/service.ts';

const T0 = Date.parse('2030-01-01T09:00:00.000Z');
const INITIAL_MESSAGES = 100_000;

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'herald-backup-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const modeOf = (file: string): string => (statSync(file).mode & 0o777).toString(8);

/** Every table of a SQLite file: name → its rows as JSON text, sorted. */
function tablesOf(file: string): Map<string, string[]> {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const names = db.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name").all().map((row) => String(row.name));
    return new Map(names.map((name) => [name, db.prepare(`select * from "${name}"`).all().map((row) => JSON.stringify(row, (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v))).sort()]));
  } finally {
    db.close();
  }
}

/** messages_left + the account's messages: the same sum in any consistent state (one transaction per accepted send). */
function ledgerSum(file: string, accountId: string): { messagesLeft: number; messages: number } {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const left = db.prepare('select messages_left as n from accounts where id = ?').get(accountId);
    const sent = db.prepare('select count(*) as n from messages where account_id = ?').get(accountId);
    return { messagesLeft: Number(left?.n), messages: Number(sent?.n) };
  } finally {
    db.close();
  }
}

async function sendEmails(service: Service, apiKey: string, count: number): Promise<void> {
  const answers = await Promise.all(Array.from({ length: count }, (_, i) => post(service, '/v1/email', apiKey, emailBody({ to: [{ email: `r${i}@example.org` }] }))));
  for (const answer of answers) assert.equal(answer.statusCode, 200, answer.body);
}

test('a backup taken while sends are in flight is a consistent copy, and one taken after them holds every row of every table', { timeout: 120_000 }, async (t) => {
  const dir = tempDir(t);
  const store = `sqlite:${join(dir, 'herald.db')}`;
  // A clock that stands still: the heartbeat rewrites its row unchanged, so an idle store is a still one.
  const service = await startService(t, { clock: () => T0, env: { HERALD_DATABASE_URL: store } });
  const account = await openAccount(service, { messagesLeft: INITIAL_MESSAGES, rateLimitPerSecond: 100_000 });

  // Load: rounds of concurrent sends for as long as the backup runs (bounded).
  const duringLoad = join(dir, 'during-load.db');
  let backupDone = false;
  const backupRun = heraldCli({ HERALD_DATABASE_URL: store }, 'backup', duringLoad).finally(() => (backupDone = true));
  // Rounds go on until the backup ends and three more after it, so sends certainly follow its snapshot.
  let rounds = 0;
  let after = 0;
  for (; rounds < 200 && (!backupDone || after++ < 3); rounds++) await sendEmails(service, account.apiKey, 20);
  const run = await backupRun;
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^backed up to .*during-load\.db \(\d+ pages, mode 0600\)\n/);
  assert.equal(modeOf(duringLoad), '600');
  assert.ok(!existsSync(`${duringLoad}-wal`) || statSync(`${duringLoad}-wal`).size === 0, 'the copy is one file');

  const copy = new DatabaseSync(duringLoad, { readOnly: true });
  assert.equal(copy.prepare('pragma integrity_check').get()?.integrity_check, 'ok');
  copy.close();
  const inCopy = ledgerSum(duringLoad, account.id);
  const inSource = ledgerSum(join(dir, 'herald.db'), account.id);
  assert.equal(inCopy.messagesLeft + inCopy.messages, INITIAL_MESSAGES, 'the copy is one commit\'s state: every message with its debit');
  assert.equal(inSource.messages, rounds * 20);
  assert.ok(inCopy.messages < inSource.messages, `sends went on during the backup (${inCopy.messages} in the copy of ${inSource.messages})`);

  // Load stopped: a copy equal to the store, table by table, row by row, but for the hold it carries.
  // The last requests' log entries are written first (the job would write them within a second, maybe mid-backup).
  await service.apiRequestLog.flush();
  const afterLoad = join(dir, 'after-load.db');
  const again = await heraldCli({ HERALD_DATABASE_URL: store }, 'backup', afterLoad, '--json');
  assert.equal(again.code, 0, again.stderr);
  assert.deepStrictEqual(JSON.parse(again.stdout), { file: afterLoad, pages: JSON.parse(again.stdout).pages, deliveryHeld: true });
  const source = tablesOf(join(dir, 'herald.db'));
  const restored = tablesOf(afterLoad);
  const hold = restored.get('settings')?.find((row) => JSON.parse(row).key === 'delivery_hold');
  assert.ok(hold !== undefined, 'the copy holds delivery');
  assert.equal(JSON.parse(JSON.parse(hold).value).reason, 'restored from a backup');
  restored.set('settings', (restored.get('settings') ?? []).filter((row) => row !== hold));
  assert.deepStrictEqual([...restored.keys()], [...source.keys()]);
  for (const [table, rows] of source) assert.deepStrictEqual(restored.get(table), rows, `table ${table}`);
  assert.ok((source.get('messages')?.length ?? 0) === rounds * 20);

  // A backup never overwrites.
  const refused = await heraldCli({ HERALD_DATABASE_URL: store }, 'backup', afterLoad);
  assert.deepStrictEqual([refused.code, refused.stderr], [1, `herald: FILE: ${afterLoad} exists; a backup never overwrites a file\n`]);
});

/** Polls GET /v1/messages/:msgid until `status` (bounded), or returns the last one seen. */
async function statusWithin(service: Service, apiKey: string, msgid: string, status: string, ms: number): Promise<string> {
  const until = Date.now() + ms;
  for (;;) {
    const seen = (await get(service, `/v1/messages/${msgid}`, apiKey)).json().status as string;
    if (seen === status || Date.now() > until) return seen;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('started with --paused, the outbox is held (messages stay queued, nothing is delivered) until `herald outbox release`', { timeout: 60_000 }, async (t) => {
  // A SQLite file, or with HERALD_TEST_STORE=postgres a schema: the CLI reaches either.
  const store = await sharedStore(t);
  const service = await startService(t, { paused: true, worker: true, workerOptions: { pollMs: 50 }, env: { HERALD_DATABASE_URL: store } });
  const account = await openAccount(service);
  const sent = await post(service, '/v1/email', account.apiKey, emailBody());
  assert.equal(sent.statusCode, 200);
  const msgid = sent.json().to[0].msgid as string;

  assert.equal(await statusWithin(service, account.apiKey, msgid, 'sent', 1500), 'queued');
  const ready = await service.http.inject({ method: 'GET', url: '/readyz' });
  assert.deepStrictEqual([ready.statusCode, ready.json()], [200, { status: 'ready', delivery_held: { since: ready.json().delivery_held.since, reason: 'started with --paused', release: 'herald outbox release' } }]);
  const status = await heraldCli({ HERALD_DATABASE_URL: store }, 'outbox', 'status', '--json');
  assert.equal(JSON.parse(status.stdout).held.reason, 'started with --paused');

  const released = await heraldCli({ HERALD_DATABASE_URL: store }, 'outbox', 'release');
  assert.equal(released.code, 0, released.stderr);
  assert.match(released.stdout, /^delivery released \(held since .*: started with --paused\)\n$/);
  assert.equal(await statusWithin(service, account.apiKey, msgid, 'sent', 10_000), 'sent');
  assert.deepStrictEqual((await service.http.inject({ method: 'GET', url: '/readyz' })).json(), { status: 'ready' });
  assert.equal((await heraldCli({ HERALD_DATABASE_URL: store }, 'outbox', 'release')).stdout, 'delivery was not held\n');
});

test('a restored copy starts with its queue held, shown in /admin/v1/health, and delivers it once released', { timeout: 60_000 }, async (t) => {
  const dir = tempDir(t);
  const original = `sqlite:${join(dir, 'herald.db')}`;
  const first = await startService(t, { env: { HERALD_DATABASE_URL: original } });
  const account = await openAccount(first);
  const msgid = (await post(first, '/v1/email', account.apiKey, emailBody())).json().to[0].msgid as string;
  const copyFile = join(dir, 'copy.db');
  assert.equal((await heraldCli({ HERALD_DATABASE_URL: original }, 'backup', copyFile)).code, 0);

  const restored = await startService(t, { worker: true, workerOptions: { pollMs: 50 }, env: { HERALD_DATABASE_URL: `sqlite:${copyFile}`, HERALD_ADMIN_TOKEN: 'test-admin-token-0123456789' } });
  assert.ok(restored.deliveryHold?.held());
  assert.equal(await statusWithin(restored, account.apiKey, msgid, 'sent', 1500), 'queued');
  const health = await restored.http.inject({ method: 'GET', url: '/admin/v1/health', headers: { authorization: 'Bearer test-admin-token-0123456789' } });
  assert.equal(health.json().delivery_held.reason, 'restored from a backup');

  assert.equal((await heraldCli({ HERALD_DATABASE_URL: `sqlite:${copyFile}` }, 'outbox', 'release')).code, 0);
  assert.equal(await statusWithin(restored, account.apiKey, msgid, 'sent', 10_000), 'sent');
  assert.equal((await restored.http.inject({ method: 'GET', url: '/admin/v1/health', headers: { authorization: 'Bearer test-admin-token-0123456789' } })).json().delivery_held, null);
});

test('`herald backup` of a store that is not there creates nothing and exits 1', async (t) => {
  const dir = tempDir(t);
  const run = await heraldCli({ HERALD_DATABASE_URL: `sqlite:${join(dir, 'typo.db')}` }, 'backup', join(dir, 'copy.db'));
  assert.deepStrictEqual([run.code, run.stderr], [1, `herald: HERALD_DATABASE_URL: no SQLite store at ${join(dir, 'typo.db')}\n`]);
  assert.deepStrictEqual([existsSync(join(dir, 'typo.db')), existsSync(join(dir, 'copy.db'))], [false, false]);
});

test('on PostgreSQL `herald backup` names the pg_dump line, without the password, and exits 1', async () => {
  const run = await heraldCli({ HERALD_DATABASE_URL: 'postgres://herald:s3cret@db.example.net:5432/herald?options=-c%20search_path%3Dtenant_a' }, 'backup', '/tmp/herald.dump');
  assert.deepStrictEqual([run.code, run.stdout, run.stderr], [1, '',
    'herald: the store is PostgreSQL: herald does not copy it; back it up with pg_dump (docs/operations.md "Backup and restore"):\n'
    + "  pg_dump --format=custom --file='/tmp/herald.dump' --schema='tenant_a' 'postgres://herald@db.example.net:5432/herald'\n"]);
});

test('`herald serve --paused` holds delivery in the store before it serves, and /readyz says so', { timeout: 90_000 }, async (t) => {
  const store = await sharedStore(t);
  const herald = await startHerald('all', { HERALD_DATABASE_URL: store, HERALD_ADMIN_TOKEN: 'test-admin-token-0123456789' }, 60_000, 'node', ['--paused']);
  t.after(() => herald.kill());
  const ready = await (await fetch(`${herald.url}/readyz`)).json() as { delivery_held?: { reason: string } };
  assert.equal(ready.delivery_held?.reason, 'started with --paused');
  const status = await heraldCli({ HERALD_DATABASE_URL: store }, 'outbox', 'status');
  assert.match(status.stdout, /^delivery held since \S+ \(started with --paused\); release it with `herald outbox release`\n$/);
  assert.deepStrictEqual(herald.errorLines(), []);
});

test('a hold keeps webhooks from being posted too, and releasing it posts them', { timeout: 30_000 }, async (t) => {
  const receiver = await startWebhookReceiver(t);
  const service = await startService(t, { paused: true });
  const account = await openAccount(service);
  await subscribe(service, account.apiKey, receiver);
  assert.equal((await call(service, 'POST', '/v1/webhooks/test', account.apiKey)).statusCode, 202);

  assert.equal(await service.webhooks.drain(), 0);
  assert.equal(receiver.received.length, 0);
  assert.equal((await releaseDelivery(service.deps.db))?.reason, 'started with --paused');
  await service.deliveryHold?.refresh();
  assert.equal(await service.webhooks.drain(), 1);
  assert.equal(receiver.received.length, 1);
});
