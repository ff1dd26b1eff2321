// Issue 21 item 2: while the database does not answer, every route answers 503 with
// Retry-After and one body, never the send's 400 or the authentication's 500; once it
// answers again, the same requests succeed. PostgreSQL is a throwaway cluster of the
// test's own, stopped and started; SQLite is held locked by another connection.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { Service } from '../../src/service.ts';
import { touchWhatsappSession } from '../../src/store/whatsapp-sessions.ts';
import { captureLog } from '../support/captured-log.ts';
import { ADMIN_TOKEN, addWhatsappTemplate, emailBody, issueKey, openAccount, smsBody, startService } from '../support/service.ts';
import { skipWithoutInitdb, startThrowawayPostgres } from '../support/throwaway-servers.ts';
import { asUser, signedInUser } from '../support/users.ts';

const UNAVAILABLE = { message: 'Service temporarily unavailable, please try again' };
// The pool's connection time-out is 5 s; a refused connection fails at once.
const FAST_MS = 6000;

interface Probe {
  readonly name: string;
  request(): Promise<LightMyRequestResponse>;
  /** What the request answers while the store answers. */
  readonly okStatus: number;
}

/** An account with a key, a template and an open WhatsApp window, a signed-in user, and the requests to probe. */
async function probesFor(service: Service): Promise<{ probes: Probe[]; freshKey: string }> {
  const account = await openAccount(service, { messagesLeft: 100_000, balance: 10_000_000, whatsappPrice: 500 });
  const template = await addWhatsappTemplate(service, account.id);
  await touchWhatsappSession(service.deps.db, { accountId: account.id, destination: '5215512345678', at: service.deps.clock() });
  const user = await signedInUser({ service, account, clock: { now: service.deps.clock() } }, 'ana@example.org', 'owner');
  const freshKey = (await issueKey(service, account.id)).apiKey;
  const sent = await sendAs(service, account.apiKey, '/v1/email', emailBody());
  assert.equal(sent.statusCode, 200, sent.body);
  const msgid = sent.json().to[0].msgid as string;
  const probes: Probe[] = [
    { name: 'POST /v1/email', okStatus: 200, request: () => sendAs(service, account.apiKey, '/v1/email', emailBody()) },
    { name: 'POST /v1/sms/send', okStatus: 200, request: () => sendAs(service, account.apiKey, '/v1/sms/send', smsBody()) },
    {
      name: 'POST /v1/whatsapp/sendTemplateMessage', okStatus: 200,
      request: () => sendAs(service, account.apiKey, '/v1/whatsapp/sendTemplateMessage', { destination: '5215512345678', templateId: template.id, params: ['Ana', '1234'] }),
    },
    {
      name: 'POST /v1/whatsapp/sendMessage', okStatus: 200,
      request: () => sendAs(service, account.apiKey, '/v1/whatsapp/sendMessage', { destination: '5215512345678', message: 'Your order shipped' }),
    },
    { name: 'GET /v1/messages/:msgid', okStatus: 200, request: () => service.http.inject({ method: 'GET', url: `/v1/messages/${msgid}`, headers: { authorization: `Bearer ${account.apiKey}` } }) },
    { name: 'GET /admin/v1/accounts', okStatus: 200, request: () => service.http.inject({ method: 'GET', url: '/admin/v1/accounts', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }) },
    { name: 'GET /v1/account (web session)', okStatus: 200, request: () => asUser(service, user, 'GET', '/v1/account') },
    // A key the process has not verified yet: the failure comes in authentication, not in the send.
    { name: 'POST /v1/sms/send (key not yet verified)', okStatus: 200, request: () => sendAs(service, freshKey, '/v1/sms/send', smsBody()) },
  ];
  return { probes, freshKey };
}

function sendAs(service: Service, apiKey: string, url: string, body: unknown): Promise<LightMyRequestResponse> {
  return service.http.inject({ method: 'POST', url, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
}

async function assertUnavailable(probe: Probe): Promise<void> {
  const started = Date.now();
  const res = await probe.request();
  const took = Date.now() - started;
  assert.deepStrictEqual({ status: res.statusCode, retryAfter: res.headers['retry-after'], body: res.json() }, { status: 503, retryAfter: '1', body: UNAVAILABLE }, probe.name);
  assert.ok(took < FAST_MS, `${probe.name} took ${took} ms to answer 503`);
}

test('while PostgreSQL is stopped every route answers 503 with Retry-After, and after it starts the same requests succeed', { timeout: 120_000, skip: skipWithoutInitdb }, async (t: TestContext) => {
  const cluster = await startThrowawayPostgres();
  t.after(() => cluster.stop());
  const log = captureLog('info');
  const service = await startService(t, { logger: log.logger, env: { HERALD_DATABASE_URL: cluster.url, HERALD_DATABASE_POOL_SIZE: '4' } });
  const { probes } = await probesFor(service);
  for (const probe of probes) assert.equal((await probe.request()).statusCode, probe.okStatus, `${probe.name} before the outage`);

  await cluster.halt();
  for (const probe of probes) await assertUnavailable(probe);
  // Twice, so the pool's broken and refused connections are both met.
  for (const probe of probes) await assertUnavailable(probe);
  const outageLines = log.lines.filter((line) => line.msg?.startsWith('the database does not answer'));
  assert.equal(outageLines.length, 1, 'the outage is logged once');
  assert.deepStrictEqual(log.errors().map((line) => line.msg), [], 'an outage is no error of the service\'s');
  const scraped = await service.metrics.scrape();
  assert.match(scraped, /herald_store_unavailable_total\{store="database"\} (\d+)/);
  assert.equal(Number(/herald_store_unavailable_total\{store="database"\} (\d+)/.exec(scraped)?.[1]), probes.length * 2);

  const probe = await service.http.inject({ method: 'GET', url: '/readyz' });
  assert.deepStrictEqual([probe.statusCode, probe.json()], [503, UNAVAILABLE]);

  await cluster.resume();
  for (const probe of probes) {
    const res = await probe.request();
    assert.equal(res.statusCode, probe.okStatus, `${probe.name} after the outage: ${res.body}`);
  }
  assert.deepStrictEqual(log.lines.filter((line) => /^the database (does not answer|answers again)/.test(line.msg ?? '')).map((line) => [line.level, line.msg?.split(':')[0]]), [
    [40, 'the database does not answer'], [30, 'the database answers again'],
  ]);
});

test('a send held up past SQLite\'s busy time-out by another writer answers 503 with Retry-After', { timeout: 60_000 }, async (t: TestContext) => {
  const dir = mkdtempSync(join(tmpdir(), 'herald-busy-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'herald.db');
  const service = await startService(t, { env: { HERALD_DATABASE_URL: `sqlite:${file}` } });
  const account = await openAccount(service);
  assert.equal((await sendAs(service, account.apiKey, '/v1/sms/send', smsBody())).statusCode, 200);

  // Another process (a CLI run, a backup tool) holds the write lock past the busy time-out.
  const other = new DatabaseSync(file, { timeout: 100 });
  other.exec('begin immediate');
  try {
    const res = await sendAs(service, account.apiKey, '/v1/sms/send', smsBody());
    assert.deepStrictEqual({ status: res.statusCode, retryAfter: res.headers['retry-after'], body: res.json() }, { status: 503, retryAfter: '1', body: UNAVAILABLE });
  } finally {
    other.exec('rollback');
    other.close();
  }
  assert.equal((await sendAs(service, account.apiKey, '/v1/sms/send', smsBody())).statusCode, 200);
});

test('the OpenAPI document lists the 503 with Retry-After on every operation', async (t: TestContext) => {
  const service = await startService(t);
  const document = (await service.http.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>> };
  const missing: string[] = [];
  let operations = 0;
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      operations++;
      if (operation.responses['503']?.headers?.['Retry-After'] === undefined) missing.push(`${method.toUpperCase()} ${path}`);
    }
  }
  assert.ok(operations > 50, `${operations} operations`);
  assert.deepStrictEqual(missing, []);
});
