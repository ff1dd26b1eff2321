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
import { connect, type Socket } from 'node:net';
import { assertSentOnce, startFirstLife, type Cleanups } from '../support/commit-watch.ts';
import { startHerald } from '../support/herald-process.ts';
import { ADMIN_TOKEN } from '../support/multi-process.ts';
import { TEST_POSTGRES_URL } from '../support/postgres.ts';

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

for (const kind of ['sqlite', 'postgres'] as const) {
  const skip = kind === 'postgres' && (TEST_POSTGRES_URL === undefined || TEST_POSTGRES_URL === '') ? 'needs TEST_POSTGRES_URL' : false;
  test(`${kind}: a send SIGKILLed between its commit and its answer is answered on retry with the same key: the first answer, billed once`, { skip, timeout: 120_000 }, async (t) => {
    const cleanups: Cleanups = [];
    t.after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    });
    const life = await startFirstLife(cleanups, kind, KEY);
    const { url, herald: first, account, watch: gate, storedKey } = life;

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
    await assertSentOnce(life, second, answer.to.map((r) => r.msgid));
  });
}
