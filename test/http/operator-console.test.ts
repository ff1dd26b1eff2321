// What the operator console adds to the admin API (issue 12): top-ups with a reason that
// the account sees in its ledger, and the service's health.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import type { LightMyRequestResponse } from 'fastify';
import type { Service } from '../../src/service.ts';
import { recordEvent } from '../../src/store/messages.ts';
import { ADMIN_TOKEN, emailBody, get, openAccount, post, smsBody, startService } from '../support/service.ts';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const INVALID = 'Invalid request, a field has the wrong type or value';

async function serviceAt(t: TestContext): Promise<{ service: Service; clock: { now: number } }> {
  const clock = { now: T0 };
  const service = await startService(t, { clock: () => clock.now });
  return { service, clock };
}

function admin(service: Service, method: 'GET' | 'POST', url: string, body?: unknown, token = ADMIN_TOKEN): Promise<LightMyRequestResponse> {
  return service.http.inject({
    method, url,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

// ---- the account list ----

async function opened(service: Service, clock: { now: number }, names: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const name of names) {
    clock.now += 1000;
    ids.push((await openAccount(service, { name })).id);
  }
  return ids;
}

test('the account list shows every account newest first, with what it has left, its channels and its users', async (t) => {
  const { service, clock } = await serviceAt(t);
  const [acme, beta] = await opened(service, clock, ['Acme', 'Beta']) as [string, string];
  assert.equal((await admin(service, 'POST', `/admin/v1/accounts/${acme}/users`, { email: 'owner@acme.test', role: 'owner' })).statusCode, 201);
  const res = await admin(service, 'GET', '/admin/v1/accounts');
  assert.deepStrictEqual([res.statusCode, res.json()], [200, {
    accounts: [
      { id: beta, name: 'Beta', active: true, messagesLeft: 1000, balance: 0, services: { email: true, sms: true, whatsapp: true }, users: 0, createdAt: '2030-01-01T00:00:02.000Z' },
      { id: acme, name: 'Acme', active: true, messagesLeft: 1000, balance: 0, services: { email: true, sms: true, whatsapp: true }, users: 1, createdAt: '2030-01-01T00:00:01.000Z' },
    ],
    next_cursor: null,
  }]);
});

test('the account list finds accounts by part of the name without regard to case, or by the exact id', async (t) => {
  const { service, clock } = await serviceAt(t);
  const [, shop, shopping] = await opened(service, clock, ['Acme', 'Shop 100%', 'Shopping']) as [string, string, string];
  const names = async (q: string) => (await admin(service, 'GET', `/admin/v1/accounts?q=${encodeURIComponent(q)}`)).json().accounts.map((a: { name: string }) => a.name);
  assert.deepStrictEqual(await names('SHOP'), ['Shopping', 'Shop 100%']);
  assert.deepStrictEqual(await names('100%'), ['Shop 100%']);
  assert.deepStrictEqual(await names('_'), []);
  assert.deepStrictEqual(await names(shopping), ['Shopping']);
  assert.deepStrictEqual(await names(shop.slice(0, 8)), []);
});

test('the account list pages by cursor and refuses a bad one', async (t) => {
  const { service, clock } = await serviceAt(t);
  const ids = await opened(service, clock, ['a', 'b', 'c']);
  const first = (await admin(service, 'GET', '/admin/v1/accounts?limit=2')).json();
  const second = (await admin(service, 'GET', `/admin/v1/accounts?limit=2&cursor=${first.next_cursor}`)).json();
  assert.deepStrictEqual([...first.accounts, ...second.accounts].map((a: { id: string }) => a.id), [...ids].reverse());
  assert.equal(second.next_cursor, null);
  const bad = await admin(service, 'GET', '/admin/v1/accounts?cursor=nope');
  assert.deepStrictEqual([bad.statusCode, bad.json()], [400, { message: INVALID, detail: 'cursor: must be the next_cursor of a previous page' }]);
  const anonymous = await admin(service, 'GET', '/admin/v1/accounts', undefined, 'wrong');
  assert.deepStrictEqual([anonymous.statusCode, anonymous.json()], [401, { message: 'Admin token missing or invalid' }]);
});

// ---- top-ups ----

test('a top-up adds messages and money and answers its ledger entry with the reason', async (t) => {
  const { service } = await serviceAt(t);
  const account = await openAccount(service, { messagesLeft: 10 });
  const res = await admin(service, 'POST', `/admin/v1/accounts/${account.id}/top-ups`, { messages: 500, balance: '12.5', reason: 'invoice 2026-118' });
  assert.equal(res.statusCode, 201);
  const entry = res.json();
  assert.deepStrictEqual(entry, { id: entry.id, at: '2030-01-01T00:00:00.000Z', messagesDelta: 500, balanceDelta: 12.5, reason: 'admin.top-up', sendId: null, note: 'invoice 2026-118' });
  const view = (await get(service, '/v1/account', account.apiKey)).json();
  assert.deepStrictEqual([view.messages_left, view.balance], [510, 12.5]);
});

test('the account sees the operator\'s reason in its ledger', async (t) => {
  const { service } = await serviceAt(t);
  const account = await openAccount(service, { messagesLeft: 10 });
  await admin(service, 'POST', `/admin/v1/accounts/${account.id}/top-ups`, { messages: -3, reason: 'refund of a mistaken top-up' });
  const [latest] = (await get(service, '/v1/ledger', account.apiKey)).json().entries;
  assert.deepStrictEqual({ ...latest, entry_id: '' }, { entry_id: '', at: '2030-01-01T00:00:00.000Z', kind: 'admin.top-up', messages: -3, amount: 0, reason: 'refund of a mistaken top-up', send_id: null });
});

test('a top-up needs a reason and an amount, and cannot take the account below zero', async (t) => {
  const { service } = await serviceAt(t);
  const account = await openAccount(service, { messagesLeft: 10 });
  const cases: [unknown, string][] = [
    [{ messages: 5 }, 'reason: is required'],
    [{ messages: 5, reason: '   ' }, 'reason: must be 1 to 500 characters, without control characters: it goes into the ledger'],
    [{ reason: 'why' }, 'messages: give messages, balance or both, not zero'],
    [{ messages: 1.5, reason: 'why' }, 'messages: must be a whole number'],
    [{ balance: '0.00001', reason: 'why' }, 'balance: must be an amount with at most 4 decimals (negative to remove money)'],
    [{ messages: -11, reason: 'why' }, 'messages: the account would go below zero'],
    [{ messages: 1, reason: 'why', note: 'x' }, 'note: unknown field'],
  ];
  for (const [body, detail] of cases) {
    const res = await admin(service, 'POST', `/admin/v1/accounts/${account.id}/top-ups`, body);
    assert.deepStrictEqual([res.statusCode, res.json()], [400, { message: INVALID, detail }], detail);
  }
  assert.deepStrictEqual((await get(service, '/v1/ledger', account.apiKey)).json().entries.map((e: { kind: string }) => e.kind), ['account.open']);
});

test('a top-up of an unknown account answers 404, and without the admin token 401', async (t) => {
  const { service } = await serviceAt(t);
  const account = await openAccount(service);
  const unknown = await admin(service, 'POST', '/admin/v1/accounts/01890000-0000-7000-8000-000000000000/top-ups', { messages: 1, reason: 'why' });
  assert.deepStrictEqual([unknown.statusCode, unknown.json()], [404, { message: 'Not found' }]);
  const anonymous = await admin(service, 'POST', `/admin/v1/accounts/${account.id}/top-ups`, { messages: 1, reason: 'why' }, 'wrong');
  assert.deepStrictEqual([anonymous.statusCode, anonymous.json()], [401, { message: 'Admin token missing or invalid' }]);
});

// ---- health ----

test('health lists this process, the queues per channel with the oldest one\'s age, the webhook backlog and the failures of the last hour', async (t) => {
  const { service, clock } = await serviceAt(t);
  const account = await openAccount(service, { messagesLeft: 100 });
  await post(service, '/v1/email', account.apiKey, emailBody());
  clock.now += 90_000;
  const failed = (await post(service, '/v1/sms/send', account.apiKey, smsBody())).json().messages[0].msgid as string;
  await recordEvent(service.deps.db, { messageId: failed, status: 'failed', eventId: service.deps.newId(), at: clock.now, data: {} });
  await service.deps.db.deleteFrom('outbox').where('message_id', '=', failed).execute();
  clock.now += 30_000;
  const res = await admin(service, 'GET', '/admin/v1/health');
  assert.deepStrictEqual([res.statusCode, res.json()], [200, {
    processes: [{ role: 'all', pid: process.pid, host: hostname(), started_at: '2030-01-01T00:00:00.000Z', last_seen_at: '2030-01-01T00:00:00.000Z' }],
    queues: [{ channel: 'email', queued: 1, oldest_age_seconds: 120 }, { channel: 'sms', queued: 0, oldest_age_seconds: null }, { channel: 'whatsapp', queued: 0, oldest_age_seconds: null }],
    webhook_backlog: 0,
    failures_last_hour: 1,
    delivery_held: null,
  }]);
});

test('a failure older than an hour is not counted, and a process not seen for an hour is not listed', async (t) => {
  const { service, clock } = await serviceAt(t);
  const account = await openAccount(service, { messagesLeft: 100 });
  const failed = (await post(service, '/v1/sms/send', account.apiKey, smsBody())).json().messages[0].msgid as string;
  await recordEvent(service.deps.db, { messageId: failed, status: 'failed', eventId: service.deps.newId(), at: clock.now, data: {} });
  clock.now += 3_600_001;
  const body = (await admin(service, 'GET', '/admin/v1/health')).json();
  assert.deepStrictEqual([body.failures_last_hour, body.processes], [0, []]);
});

test('the account list, top-ups and health are in the OpenAPI document under the admin tag, with the admin token', async (t) => {
  const { service } = await serviceAt(t);
  const doc = (await service.http.inject({ method: 'GET', url: '/openapi.json' })).json();
  for (const [path, method] of [['/admin/v1/accounts', 'get'], ['/admin/v1/accounts/{id}/top-ups', 'post'], ['/admin/v1/health', 'get']] as const) {
    const operation = doc.paths[path]?.[method];
    assert.deepStrictEqual([operation?.tags, operation?.security], [['admin'], [{ adminToken: [] }]], `${method} ${path}`);
  }
});
