// The account's own operations over HTTP (issue 12): /v1/account with the IP allow-list,
// /v1/api-keys, /v1/usage and /v1/ledger — exact answers, keys hashed at rest, last use
// recorded once a minute, and another account's ids not found.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { Service } from '../../src/service.ts';
import { recordEvent } from '../../src/store/messages.ts';
import { ADMIN_TOKEN, emailBody, get, issueKey, openAccount, post, smsBody, startService, UUID } from '../support/service.ts';
import { asUser, signedInUser, usersWorld } from '../support/users.ts';

const T0 = Date.parse('2030-03-10T12:00:00.000Z');
const INVALID = 'Invalid request, a field has the wrong type or value';
const NOT_AUTHORIZED = { message: 'API key not authorized.' };

async function serviceAt(t: TestContext): Promise<{ service: Service; clock: { now: number } }> {
  const clock = { now: T0 };
  const service = await startService(t, { clock: () => clock.now });
  return { service, clock };
}

function call(service: Service, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, apiKey: string, body?: unknown, remoteAddress = '127.0.0.1'): Promise<LightMyRequestResponse> {
  return service.http.inject({
    method, url, remoteAddress,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

const answer = (res: LightMyRequestResponse) => ({ status: res.statusCode, body: res.body === '' ? undefined : res.json() });

// ---- /v1/account ----

test('GET /v1/account answers the account with the address the caller is seen at', async (t) => {
  const { service } = await serviceAt(t);
  const account = await openAccount(service, { name: 'Acme', messagesLeft: 250, rateLimitPerSecond: 40, smsSenders: ['+34600111222', 'ACME'] });
  const res = await call(service, 'GET', '/v1/account', account.apiKey, undefined, '203.0.113.9');
  assert.deepStrictEqual(answer(res), {
    status: 200,
    body: {
      account_id: account.id, name: 'Acme', active: true, messages_left: 250, balance: 0, whatsapp_price: 0, rate_limit_per_second: 40,
      services: { email: true, sms: true, whatsapp: true }, ip_allow_list: [], allow_list_applies_to: 'all', caller_ip: '203.0.113.9', sms_senders: ['+34600111222', 'ACME'],
    },
  });
});

test('PATCH /v1/account stores the IP allow-list in canonical form and answers the account', async (t) => {
  const { service } = await serviceAt(t);
  const account = await openAccount(service);
  const res = await call(service, 'PATCH', '/v1/account', account.apiKey, { ip_allow_list: ['10.1.2.3/8', '2001:DB8::1', '127.0.0.1'] });
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json().ip_allow_list, ['10.0.0.0/8', '2001:db8::1', '127.0.0.1']);
  const after = await call(service, 'GET', '/v1/account', account.apiKey);
  assert.deepStrictEqual(after.json().ip_allow_list, ['10.0.0.0/8', '2001:db8::1', '127.0.0.1']);
});

test('PATCH /v1/account names the entry that is not an address or range, and changes nothing', async (t) => {
  const { service } = await serviceAt(t);
  const account = await openAccount(service);
  const res = await call(service, 'PATCH', '/v1/account', account.apiKey, { ip_allow_list: ['10.0.0.0/8', '10.0.0.0/33'] });
  assert.deepStrictEqual(answer(res), { status: 400, body: { message: INVALID, detail: 'ip_allow_list[1]: must be an IPv4 or IPv6 address or CIDR range' } });
  assert.deepStrictEqual((await call(service, 'GET', '/v1/account', account.apiKey)).json().ip_allow_list, []);
});

test('PATCH /v1/account refuses a field it does not change', async (t) => {
  const { service } = await serviceAt(t);
  const account = await openAccount(service);
  const res = await call(service, 'PATCH', '/v1/account', account.apiKey, { messages_left: 1_000_000 });
  assert.deepStrictEqual(answer(res), { status: 400, body: { message: INVALID, detail: 'messages_left: unknown field' } });
});

test('an allow-list that leaves the caller out refuses the caller\'s next request', async (t) => {
  const { service } = await serviceAt(t);
  const account = await openAccount(service);
  await call(service, 'PATCH', '/v1/account', account.apiKey, { ip_allow_list: ['198.51.100.0/24'] });
  const res = await call(service, 'GET', '/v1/account', account.apiKey, undefined, '203.0.113.9');
  assert.equal(res.statusCode, 403);
  assert.equal((await call(service, 'GET', '/v1/account', account.apiKey, undefined, '198.51.100.7')).statusCode, 200);
});

test('a key without the account scope may not read the account', async (t) => {
  const { service } = await serviceAt(t);
  const account = await openAccount(service);
  const key = await issueKey(service, account.id, ['email', 'sms', 'whatsapp', 'webhooks']);
  assert.deepStrictEqual(answer(await call(service, 'GET', '/v1/account', key.apiKey)), { status: 401, body: NOT_AUTHORIZED });
});

// ---- /v1/api-keys ----

test('POST /v1/api-keys answers the key once, with its scopes in canonical order and its expiry', async (t) => {
  const { service } = await serviceAt(t);
  const account = await openAccount(service);
  const res = await call(service, 'POST', '/v1/api-keys', account.apiKey, { name: ' ci ', scopes: ['sms', 'email', 'sms'], expires_at: '2031-01-01T00:00:00Z' });
  assert.equal(res.statusCode, 201);
  const body = res.json();
  assert.match(body.key_id, UUID);
  assert.match(body.api_key, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  assert.deepStrictEqual(body, {
    key_id: body.key_id, api_key: body.api_key, name: 'ci', scopes: ['email', 'sms'],
    created_at: '2030-03-10T12:00:00.000Z', expires_at: '2031-01-01T00:00:00.000Z', mode: 'live',
  });
  assert.equal((await post(service, '/v1/sms/send', body.api_key, smsBody())).statusCode, 200);
  assert.deepStrictEqual(answer(await call(service, 'GET', '/v1/api-keys', body.api_key)), { status: 401, body: NOT_AUTHORIZED });
});

test('a key is stored as its SHA-256 only', async (t) => {
  const { service } = await serviceAt(t);
  const account = await openAccount(service);
  const { key_id: keyId, api_key: apiKey } = (await call(service, 'POST', '/v1/api-keys', account.apiKey, { name: 'ci', scopes: ['email'] })).json();
  const row = await service.deps.db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirstOrThrow();
  assert.equal(row.key_hash, createHash('sha256').update(apiKey).digest('hex'));
  assert.equal(Object.values(row).some((value) => String(value).includes(apiKey)), false);
});

test('POST /v1/api-keys refuses a missing name, an unknown scope and a past expiry, each by name', async (t) => {
  const { service } = await serviceAt(t);
  const account = await openAccount(service);
  const cases: [unknown, string][] = [
    [{ scopes: ['email'] }, 'name: must be 1 to 200 characters, without control characters'],
    [{ name: 'ci', scopes: [] }, 'scopes: must be a non-empty array of "email", "sms", "whatsapp", "webhooks", "account"'],
    [{ name: 'ci', scopes: ['email', 'admin'] }, 'scopes: must be a non-empty array of "email", "sms", "whatsapp", "webhooks", "account"'],
    [{ name: 'ci', scopes: ['email'], expires_at: '2030-03-10T11:00:00Z' }, 'expires_at: must be in the future'],
    [{ name: 'ci', scopes: ['email'], expires_at: 'tomorrow' }, 'expires_at: must be an ISO-8601 time with an offset, e.g. 2030-01-31T00:00:00Z'],
    [{ name: 'ci', scopes: ['email'], owner: true }, 'owner: unknown field'],
  ];
  for (const [body, detail] of cases) {
    assert.deepStrictEqual(answer(await call(service, 'POST', '/v1/api-keys', account.apiKey, body)), { status: 400, body: { message: INVALID, detail } }, detail);
  }
});

test('GET /v1/api-keys lists the keys oldest first with their last use, time and address, and revoked ones', async (t) => {
  const { service, clock } = await serviceAt(t);
  const account = await openAccount(service);
  const first = (await service.deps.db.selectFrom('api_keys').select('id').where('account_id', '=', account.id).executeTakeFirstOrThrow()).id;
  clock.now += 1000;
  const ci = (await call(service, 'POST', '/v1/api-keys', account.apiKey, { name: 'ci', scopes: ['email'] }, '198.51.100.4')).json();
  clock.now += 1000;
  await call(service, 'DELETE', `/v1/api-keys/${ci.key_id}`, account.apiKey, undefined, '198.51.100.4');
  clock.now += 1000;
  const res = await call(service, 'GET', '/v1/api-keys', account.apiKey, undefined, '198.51.100.4');
  assert.deepStrictEqual(answer(res), {
    status: 200,
    body: {
      api_keys: [
        {
          key_id: first, name: '', scopes: ['email', 'sms', 'whatsapp', 'webhooks', 'account'], created_at: '2030-03-10T12:00:00.000Z', expires_at: null,
          last_used_at: '2030-03-10T12:00:01.000Z', last_used_ip: '198.51.100.4', revoked_at: null, mode: 'live',
        },
        {
          key_id: ci.key_id, name: 'ci', scopes: ['email'], created_at: '2030-03-10T12:00:01.000Z', expires_at: null,
          last_used_at: null, last_used_ip: null, revoked_at: '2030-03-10T12:00:02.000Z', mode: 'live',
        },
      ],
    },
  });
});

test('a key\'s last use is written at most once a minute from one address, and at once from another', async (t) => {
  const { service, clock } = await serviceAt(t);
  const account = await openAccount(service);
  const key = await issueKey(service, account.id, ['email', 'account']);
  const lastUse = async () => {
    const keys = (await call(service, 'GET', '/v1/api-keys', account.apiKey, undefined, '192.0.2.1')).json().api_keys as { key_id: string; last_used_at: string; last_used_ip: string }[];
    const listed = keys.find((k) => k.key_id === key.id);
    return `${listed?.last_used_at} ${listed?.last_used_ip}`;
  };
  await call(service, 'GET', '/v1/account', key.apiKey, undefined, '203.0.113.1');
  clock.now += 30_000;
  await call(service, 'GET', '/v1/account', key.apiKey, undefined, '203.0.113.1');
  assert.equal(await lastUse(), '2030-03-10T12:00:00.000Z 203.0.113.1');
  await call(service, 'GET', '/v1/account', key.apiKey, undefined, '203.0.113.2');
  assert.equal(await lastUse(), '2030-03-10T12:00:30.000Z 203.0.113.2');
  clock.now += 60_000;
  await call(service, 'GET', '/v1/account', key.apiKey, undefined, '203.0.113.2');
  assert.equal(await lastUse(), '2030-03-10T12:01:30.000Z 203.0.113.2');
});

test('DELETE /v1/api-keys/:id revokes the key: it is refused from then on', async (t) => {
  const { service } = await serviceAt(t);
  const account = await openAccount(service);
  const key = await issueKey(service, account.id, ['email']);
  assert.deepStrictEqual(answer(await call(service, 'DELETE', `/v1/api-keys/${key.id}`, account.apiKey)), { status: 204, body: undefined });
  assert.deepStrictEqual(answer(await post(service, '/v1/email', key.apiKey, emailBody())), { status: 403, body: { error: 'Invalid API Key ' } });
  assert.deepStrictEqual(answer(await call(service, 'DELETE', `/v1/api-keys/${key.id}`, account.apiKey)), { status: 404, body: { message: 'Not found' } });
});

test('another account\'s key is not found, and keeps working', async (t) => {
  const { service } = await serviceAt(t);
  const account = await openAccount(service);
  const other = await openAccount(service, { name: 'other' });
  const otherKey = await issueKey(service, other.id, ['email']);
  assert.deepStrictEqual(answer(await call(service, 'DELETE', `/v1/api-keys/${otherKey.id}`, account.apiKey)), { status: 404, body: { message: 'Not found' } });
  assert.equal((await post(service, '/v1/email', otherKey.apiKey, emailBody())).statusCode, 200);
  const listed = (await call(service, 'GET', '/v1/api-keys', account.apiKey)).json().api_keys as { key_id: string }[];
  assert.equal(listed.some((k) => k.key_id === otherKey.id), false);
});

// ---- /v1/usage ----

/** Records an outcome as the outbox or a peer's report would (the event and the status move). */
async function outcome(service: Service, msgid: string, status: 'delivered' | 'bounced' | 'failed', at: number): Promise<void> {
  await recordEvent(service.deps.db, { messageId: msgid, status, eventId: service.deps.newId(), at, data: {} });
}

test('GET /v1/usage counts each day\'s accepted messages and outcomes per channel, today last', async (t) => {
  const { service, clock } = await serviceAt(t);
  const account = await openAccount(service, { messagesLeft: 100 });
  const other = await openAccount(service, { name: 'other', messagesLeft: 100 });
  clock.now = T0 - 86_400_000;
  await post(service, '/v1/sms/send', account.apiKey, smsBody());
  clock.now = T0;
  const sent = (await post(service, '/v1/email', account.apiKey, emailBody({ to: [{ email: 'ana@example.org' }, { email: 'bea@example.org' }] }))).json();
  await post(service, '/v1/email', other.apiKey, emailBody());
  const [ana, bea] = sent.to.map((r: { msgid: string }) => r.msgid) as [string, string];
  await recordEvent(service.deps.db, { messageId: ana, status: 'sending', eventId: service.deps.newId(), at: T0, data: {} });
  await recordEvent(service.deps.db, { messageId: bea, status: 'sending', eventId: service.deps.newId(), at: T0, data: {} });
  await outcome(service, ana, 'delivered', T0 + 1000);
  await outcome(service, bea, 'bounced', T0 + 1000);
  await recordEvent(service.deps.db, { messageId: ana, type: 'complained', eventId: service.deps.newId(), at: T0 + 2000, data: {} });

  const res = await call(service, 'GET', '/v1/usage', account.apiKey);
  assert.equal(res.statusCode, 200);
  const body = res.json();
  const none = { accepted: 0, delivered: 0, bounced: 0, failed: 0 };
  assert.equal(body.days.length, 30);
  assert.deepStrictEqual(body.days[0], { date: '2030-02-09', email: none, sms: none, whatsapp: none });
  assert.deepStrictEqual(body.days.slice(28), [
    { date: '2030-03-09', email: none, sms: { ...none, accepted: 1 }, whatsapp: none },
    { date: '2030-03-10', email: { accepted: 2, delivered: 1, bounced: 1, failed: 0 }, sms: none, whatsapp: none },
  ]);
  assert.deepStrictEqual(body.days.slice(1, 28).filter((d: { email: unknown; sms: unknown; whatsapp: unknown }) => JSON.stringify([d.email, d.sms, d.whatsapp]) !== JSON.stringify([none, none, none])), []);
  assert.deepStrictEqual({ today: body.today, bounce_rate: body.bounce_rate, complaint_rate: body.complaint_rate }, { today: { email: 2, sms: 0, whatsapp: 0 }, bounce_rate: 0.5, complaint_rate: 0.5 });
});

test('GET /v1/usage?days=7 answers seven days, and a number of days out of 1 to 90 is refused', async (t) => {
  const { service } = await serviceAt(t);
  const account = await openAccount(service);
  const week = (await call(service, 'GET', '/v1/usage?days=7', account.apiKey)).json();
  assert.deepStrictEqual(week.days.map((d: { date: string }) => d.date), ['2030-03-04', '2030-03-05', '2030-03-06', '2030-03-07', '2030-03-08', '2030-03-09', '2030-03-10']);
  assert.deepStrictEqual({ today: week.today, bounce_rate: week.bounce_rate, complaint_rate: week.complaint_rate }, { today: { email: 0, sms: 0, whatsapp: 0 }, bounce_rate: 0, complaint_rate: 0 });
  for (const days of ['0', '91', 'x']) {
    assert.deepStrictEqual(answer(await call(service, 'GET', `/v1/usage?days=${days}`, account.apiKey)), { status: 400, body: { message: INVALID, detail: 'days must be a whole number from 1 to 90' } });
  }
});

// ---- /v1/ledger ----

async function topUp(service: Service, accountId: string, addMessages: number): Promise<void> {
  const res = await service.http.inject({
    method: 'PATCH', url: `/admin/v1/accounts/${accountId}`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, payload: JSON.stringify({ addMessages }),
  });
  assert.equal(res.statusCode, 200, res.body);
}

test('GET /v1/ledger lists the movements newest first, each with its kind and send', async (t) => {
  const { service, clock } = await serviceAt(t);
  const account = await openAccount(service, { messagesLeft: 10 });
  clock.now += 1000;
  assert.equal((await post(service, '/v1/sms/send', account.apiKey, smsBody())).statusCode, 200);
  clock.now += 1000;
  await topUp(service, account.id, 5);
  const res = await call(service, 'GET', '/v1/ledger', account.apiKey);
  assert.equal(res.statusCode, 200);
  const body = res.json();
  const ids = body.entries.map((e: { entry_id: string }) => e.entry_id);
  const sendId: string = body.entries[1].send_id;
  assert.match(sendId, UUID);
  assert.deepStrictEqual(body, {
    entries: [
      { entry_id: ids[0], at: '2030-03-10T12:00:02.000Z', kind: 'admin.top-up', messages: 5, amount: 0, reason: null, send_id: null },
      { entry_id: ids[1], at: '2030-03-10T12:00:01.000Z', kind: 'sms.send', messages: -1, amount: 0, reason: null, send_id: sendId },
      { entry_id: ids[2], at: '2030-03-10T12:00:00.000Z', kind: 'account.open', messages: 10, amount: 0, reason: null, send_id: null },
    ],
    next_cursor: null,
  });
});

test('GET /v1/ledger filters by time and pages by cursor', async (t) => {
  const { service, clock } = await serviceAt(t);
  const account = await openAccount(service, { messagesLeft: 10 });
  for (const n of [1, 2, 3]) {
    clock.now = T0 + n * 60_000;
    await topUp(service, account.id, n);
  }
  const kinds = (res: LightMyRequestResponse) => (res.json().entries as { messages: number }[]).map((e) => e.messages);
  assert.deepStrictEqual(kinds(await call(service, 'GET', '/v1/ledger?since=2030-03-10T12:02:00Z', account.apiKey)), [3, 2]);
  assert.deepStrictEqual(kinds(await call(service, 'GET', `/v1/ledger?until=${T0 + 120_000}`, account.apiKey)), [1, 10]);
  const first = (await call(service, 'GET', '/v1/ledger?limit=2', account.apiKey)).json();
  assert.deepStrictEqual(first.entries.map((e: { messages: number }) => e.messages), [3, 2]);
  const second = (await call(service, 'GET', `/v1/ledger?limit=2&cursor=${first.next_cursor}`, account.apiKey)).json();
  assert.deepStrictEqual({ messages: second.entries.map((e: { messages: number }) => e.messages), next: second.next_cursor }, { messages: [1, 10], next: null });
});

test('GET /v1/ledger refuses a bad time, cursor or limit by name', async (t) => {
  const { service } = await serviceAt(t);
  const account = await openAccount(service);
  const cases: [string, string][] = [
    ['since=yesterday', 'since: must be an ISO-8601 time or epoch milliseconds'],
    ['until=2030-13-01', 'until: must be an ISO-8601 time or epoch milliseconds'],
    ['cursor=abc', 'cursor: must be the next_cursor of a previous page'],
    ['limit=501', 'limit must be a whole number from 1 to 500'],
  ];
  for (const [query, detail] of cases) {
    assert.deepStrictEqual(answer(await call(service, 'GET', `/v1/ledger?${query}`, account.apiKey)), { status: 400, body: { message: INVALID, detail } }, query);
  }
});

test('the ledger shows only the caller\'s account', async (t) => {
  const { service } = await serviceAt(t);
  const account = await openAccount(service, { messagesLeft: 10 });
  const other = await openAccount(service, { name: 'other', messagesLeft: 10 });
  await post(service, '/v1/sms/send', other.apiKey, smsBody());
  const kinds = (await get(service, '/v1/ledger', account.apiKey)).json().entries.map((e: { kind: string }) => e.kind);
  assert.deepStrictEqual(kinds, ['account.open']);
});

// ---- the same routes for users of the web application, by role ----

test('a developer makes keys of any scope but account, which only an owner may give', async (t) => {
  const world = await usersWorld(t);
  const developer = await signedInUser(world, 'dev@acme.test', 'developer');
  const owner = await signedInUser(world, 'owner@acme.test', 'owner');
  const refused = await asUser(world.service, developer, 'POST', '/v1/api-keys', { name: 'ops', scopes: ['email', 'account'] });
  assert.deepStrictEqual(answer(refused), { status: 400, body: { message: INVALID, detail: 'scopes: only an owner may give a key the "account" scope' } });
  assert.equal((await asUser(world.service, developer, 'POST', '/v1/api-keys', { name: 'ci', scopes: ['email', 'webhooks'] })).statusCode, 201);
  assert.equal((await asUser(world.service, owner, 'POST', '/v1/api-keys', { name: 'ops', scopes: ['account'] })).statusCode, 201);
});

test('a viewer reads the account, keys, usage and ledger, and changes nothing', async (t) => {
  const world = await usersWorld(t);
  const viewer = await signedInUser(world, 'viewer@acme.test', 'viewer');
  for (const url of ['/v1/account', '/v1/api-keys', '/v1/usage', '/v1/ledger']) {
    assert.equal((await asUser(world.service, viewer, 'GET', url)).statusCode, 200, url);
  }
  const key = (await world.service.deps.db.selectFrom('api_keys').select('id').where('account_id', '=', world.account.id).executeTakeFirstOrThrow()).id;
  for (const [method, url, body] of [['POST', '/v1/api-keys', { name: 'x', scopes: ['email'] }], ['DELETE', `/v1/api-keys/${key}`, undefined], ['PATCH', '/v1/account', { ip_allow_list: [] }]] as const) {
    assert.deepStrictEqual(answer(await asUser(world.service, viewer, method, url, body)), { status: 401, body: NOT_AUTHORIZED }, `${method} ${url}`);
  }
});

test('only an owner changes the IP allow-list', async (t) => {
  const world = await usersWorld(t);
  const developer = await signedInUser(world, 'dev@acme.test', 'developer');
  const owner = await signedInUser(world, 'owner@acme.test', 'owner');
  assert.deepStrictEqual(answer(await asUser(world.service, developer, 'PATCH', '/v1/account', { ip_allow_list: ['10.0.0.0/8'] })), { status: 401, body: NOT_AUTHORIZED });
  const changed = await asUser(world.service, owner, 'PATCH', '/v1/account', { ip_allow_list: ['127.0.0.0/8'] });
  assert.deepStrictEqual([changed.statusCode, changed.json().ip_allow_list, changed.json().caller_ip], [200, ['127.0.0.0/8'], '127.0.0.1']);
});
