// A send whose process dies between its commit and its answer: the client never reads an
// answer, retries with the same Idempotency-Key, and gets the first answer (the msgids the
// database holds), billed once. herald runs as a child process (`serve --role api`); the
// client is a bare socket that writes the request and reads nothing; herald is SIGKILLed
// once the send's key is committed, then started again.
//  - PostgreSQL: herald reaches the database through a relay that holds back the answer to
//    the COMMIT (test/peers/postgres-commit-gate.ts), so the kill lands after the commit
//    and before herald knows of it: the answer was never written.
//  - SQLite (no wire to hold): the test polls the file and kills at the first sight of the
//    key; the answer waits for the commit's fsync, so the kill usually lands before it
//    (how many answer bytes reached the dead connection is reported, not asserted).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/dialect.ts';
import { startCommitGate } from '../peers/postgres-commit-gate.ts';
import { startHerald } from '../support/herald-process.ts';
import { ADMIN_TOKEN, ledgerByReason, ledgerOf, openAccountByAdmin } from '../support/multi-process.ts';
import { freshSchema, TEST_POSTGRES_URL } from '../support/postgres.ts';

const KEY = 'crash-retry-0001';
const RECIPIENTS = 50;
const body = JSON.stringify({
  to: Array.from({ length: RECIPIENTS }, (_, i) => ({ email: `r${i}@example.org` })),
  from: { email: 'news@example.com', name: 'News' }, replyTo: { email: 'help@example.com', name: 'Help' },
  subject: 'Your receipt', body: '<p>Thank you</p>',
});

/** Writes the keyed request on a bare socket and never reads: a client that will not see the answer. */
async function slowClient(url: string, apiKey: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.pause();
  socket.on('error', () => {}); // the reset when the server dies
  await once(socket, 'connect');
  socket.write([
    'POST /v1/email HTTP/1.1', `Host: ${hostname}:${port}`, `Authorization: Bearer ${apiKey}`, 'Content-Type: application/json',
    `Idempotency-Key: ${KEY}`, `Content-Length: ${Buffer.byteLength(body)}`, '', body,
  ].join('\r\n'));
  return socket;
}

/** A store for two herald lives: a SQLite file, or a PostgreSQL schema of its own. */
/** Teardown steps, run last-added first once the test ends (node:test runs its `after` hooks in the order added). */
type Cleanups = (() => unknown)[];

async function storeUrl(cleanups: Cleanups, kind: 'sqlite' | 'postgres'): Promise<string> {
  if (kind === 'postgres') {
    const schema = await freshSchema();
    cleanups.push(() => schema.drop());
    return schema.url;
  }
  const dir = mkdtempSync(join(tmpdir(), 'herald-idempotency-crash-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return `sqlite:${join(dir, 'herald.db')}`;
}

/** What herald is given as HERALD_DATABASE_URL, and how the test learns that the send committed. */
interface Watch {
  readonly heraldUrl: string;
  /** Resolves once the keyed send is committed (herald not yet told, on PostgreSQL). */
  committed(): Promise<void>;
}

async function watch(cleanups: Cleanups, kind: 'sqlite' | 'postgres', url: string, found: () => Promise<boolean>, debug: () => string = () => ''): Promise<Watch> {
  if (kind === 'sqlite') {
    return {
      heraldUrl: url,
      async committed() {
        const deadline = Date.now() + 30_000;
        while (!(await found())) {
          assert.ok(Date.now() < deadline, `the send committed within 30 s\n${debug()}`);
          // node:sqlite answers at once: without a turn of the event loop the client's socket would never be written.
          await new Promise((resolve) => setImmediate(resolve));
        }
      },
    };
  }
  const direct = new URL(url);
  const gate = await startCommitGate({ host: direct.hostname, port: Number(direct.port || 5432) });
  cleanups.push(() => gate.close());
  const gated = new URL(url);
  gated.hostname = '127.0.0.1';
  gated.port = String(gate.port);
  let held: Promise<void> | undefined;
  return {
    heraldUrl: gated.href,
    committed: () => (held ??= gate.arm()),
  };
}

for (const kind of ['sqlite', 'postgres'] as const) {
  const skip = kind === 'postgres' && (TEST_POSTGRES_URL === undefined || TEST_POSTGRES_URL === '') ? 'needs TEST_POSTGRES_URL' : false;
  test(`${kind}: a send SIGKILLed between its commit and its answer is answered on retry with the same key: the first answer, billed once`, { skip, timeout: 120_000 }, async (t) => {
    const cleanups: Cleanups = [];
    t.after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    });
    const url = await storeUrl(cleanups, kind);
    const gate = await watch(cleanups, kind, url, async () => (await storedKey()) !== undefined, () => first.output().slice(-3000));
    const first = await startHerald('api', { HERALD_DATABASE_URL: gate.heraldUrl, HERALD_ADMIN_TOKEN: ADMIN_TOKEN });
    cleanups.push(() => first.kill());
    // Opened once herald has made the store (a SQLite file opened before herald set it up never sees its writes).
    const store = openStore(url, { poolSize: 1 });
    cleanups.push(() => store.db.destroy());
    const storedKey = () => store.db.selectFrom('idempotency_keys').select(['account_id', 'answer']).where('key', '=', KEY).executeTakeFirst();
    const account = await openAccountByAdmin(first, { messagesLeft: 100, rateLimitPerSecond: 1000 });

    const committed = gate.committed();
    const client = await slowClient(first.url, account.apiKey);
    cleanups.push(() => client.destroy());
    await committed;
    const stored = await storedKey();
    assert.ok(stored !== undefined, 'the key is committed');
    await first.kill('SIGKILL');
    assert.equal(client.bytesRead, 0, 'the client read nothing before the process died');
    client.resume();
    let unread = 0;
    client.on('data', (chunk: Buffer) => (unread += chunk.length));
    await once(client, 'close');
    if (kind === 'postgres') assert.equal(unread, 0, 'herald died before it could answer');
    else t.diagnostic(`bytes of the first answer that reached the dead connection: ${unread}`);

    const second = await startHerald('all', { HERALD_DATABASE_URL: url, HERALD_ADMIN_TOKEN: ADMIN_TOKEN });
    // SIGTERM: a clean stop, its database connections closed before the schema is dropped.
    cleanups.push(() => second.kill('SIGTERM'));
    const retried = await fetch(`${second.url}/v1/email`, {
      method: 'POST', headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json', 'idempotency-key': KEY }, body,
    });

    assert.equal(retried.status, 200);
    assert.equal(retried.headers.get('idempotent-replayed'), 'true');
    const answer = (await retried.json()) as { message: string; to: { email: string; msgid: string }[] };
    assert.deepStrictEqual(answer, JSON.parse(stored.answer));
    assert.equal(answer.message, 'Email queued for delivery');
    assert.deepStrictEqual(answer.to.map((r) => r.email), Array.from({ length: RECIPIENTS }, (_, i) => `r${i}@example.org`));
    const messages = await store.db.selectFrom('messages').select('id').where('account_id', '=', account.id).execute();
    assert.deepStrictEqual(new Set(messages.map((m) => m.id)), new Set(answer.to.map((r) => r.msgid)));
    assert.deepStrictEqual(ledgerByReason(await ledgerOf(second, account.id)), {
      'account.open': { entries: 1, messages: 100, balance: 0 },
      'email.send': { entries: 1, messages: -RECIPIENTS, balance: 0 },
    });
    assert.deepStrictEqual(second.errorLines(), []);
  });
}
