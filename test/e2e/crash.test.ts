import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { startSmtpSink } from '../peers/smtp-sink.ts';
import { msgidOfMailFrom } from '../support/verp.ts';

// Durability: accept 2,000 emails, SIGKILL the service while it delivers them to a
// real SMTP peer, start it again, and count what the peer received.

const root = new URL('../../', import.meta.url).pathname;
const ADMIN = 'crash-test-admin-token-0123456789';
const MESSAGES = 2000;
const PER_REQUEST = 100;

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

function startHerald(env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, ['src/main.ts', 'serve'], { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr?.setEncoding('utf8').on('data', () => {});
  return child;
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function ready(baseUrl: string): Promise<boolean> {
  try {
    return (await fetch(`${baseUrl}/readyz`)).status === 200;
  } catch {
    return false;
  }
}


test('a SIGKILL during delivery loses no accepted email, bills none twice, and resends at most the messages in flight', { timeout: 180_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'herald-crash-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // A relay that offers no STARTTLS: herald's relay transport refuses the sink's expired certificate, rightly.
  const sink = await startSmtpSink({ starttls: false });
  t.after(() => sink.close());
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HERALD_DATABASE_URL: `sqlite:${join(dir, 'herald.db')}`,
    HERALD_PORT: String(port), HERALD_HOST: '127.0.0.1', HERALD_ADMIN_TOKEN: ADMIN, HERALD_LOG_LEVEL: 'warn',
    HERALD_EMAIL_TRANSPORT: `smtp://${sink.host}:${sink.port}`, HERALD_BOUNCE_DOMAIN: 'bounces.example.com',
  };

  let herald = startHerald(env);
  t.after(() => { if (herald.exitCode === null) herald.kill('SIGKILL'); });
  await waitFor(() => ready(baseUrl), 'the first start');

  const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
  const opened = await (await fetch(`${baseUrl}/admin/v1/accounts`, {
    method: 'POST', headers: admin, body: JSON.stringify({ name: 'crash', messagesLeft: 5000, rateLimitPerSecond: 100000 }),
  })).json() as { account: { id: string }; apiKey: { apiKey: string } };
  const domain = await fetch(`${baseUrl}/admin/v1/accounts/${opened.account.id}/domains`, { method: 'POST', headers: admin, body: JSON.stringify({ domain: 'example.com', verified: true }) });
  assert.equal(domain.status, 201);

  const accepted: string[] = [];
  const requests = Array.from({ length: MESSAGES / PER_REQUEST }, (_, r) =>
    fetch(`${baseUrl}/v1/email`, {
      method: 'POST',
      headers: { authorization: `Bearer ${opened.apiKey.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        to: Array.from({ length: PER_REQUEST }, (_, i) => ({ email: `r${r}-${i}@example.org` })),
        from: { email: 'news@example.com', name: 'News' }, replyTo: { email: 'help@example.com', name: 'Help' },
        subject: `batch ${r}`, body: 'Hello',
      }),
    }).then(async (res) => {
      assert.equal(res.status, 200);
      const body = (await res.json()) as { to: { msgid: string }[] };
      accepted.push(...body.to.map((m) => m.msgid));
    }));
  await Promise.all(requests);
  assert.equal(accepted.length, MESSAGES);

  await waitFor(() => sink.messages.length >= 200, 'deliveries to start');
  herald.kill('SIGKILL');
  await once(herald, 'exit');
  const beforeCrash = sink.messages.length;
  assert.ok(beforeCrash < MESSAGES, `the kill landed mid-delivery (${beforeCrash} of ${MESSAGES} received)`);

  herald = startHerald(env);
  await waitFor(() => ready(baseUrl), 'the restart');
  await waitFor(() => new Set(sink.messages.map((m) => msgidOfMailFrom(m.mailFrom))).size >= MESSAGES, 'every message to arrive after the restart', 120_000);

  const received = sink.messages.map((m) => msgidOfMailFrom(m.mailFrom));
  const unique = new Set(received);
  const duplicates = received.length - unique.size;
  t.diagnostic(`received before the kill: ${beforeCrash}; after restart, total ${received.length}, unique ${unique.size}, duplicates ${duplicates}`);
  assert.deepStrictEqual([...accepted].sort(), [...unique].sort(), 'every accepted message reached the peer');
  assert.ok(duplicates <= 128, `duplicates (${duplicates}) at most the deliveries in flight (128 slots)`);

  const account = await (await fetch(`${baseUrl}/admin/v1/accounts/${opened.account.id}`, { headers: admin })).json() as { messagesLeft: number };
  assert.equal(account.messagesLeft, 5000 - MESSAGES, 'each message was billed once');

  herald.kill('SIGTERM');
  const [code] = await once(herald, 'exit');
  assert.equal(code, 0);
  const db = new DatabaseSync(join(dir, 'herald.db'), { readOnly: true });
  t.after(() => db.close());
  assert.deepStrictEqual(db.prepare('SELECT status, count(*) AS n FROM messages GROUP BY status').all().map((r) => ({ ...r })), [{ status: 'sent', n: MESSAGES }]);
  assert.deepStrictEqual({ ...db.prepare('SELECT count(*) AS n FROM outbox').get() }, { n: 0 });
  assert.deepStrictEqual({ ...db.prepare('SELECT sum(messages_delta) AS n FROM ledger').get() }, { n: 5000 - MESSAGES });
});
