// The account's webhook API (/v1/webhooks), the operator's view of it, and what the
// private-address guard refuses. Deliveries go to a real receiver on loopback that
// verifies every post with the `standardwebhooks` package.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { uuidv7 } from '../../src/app/uuidv7-source.ts';
import type { Service } from '../../src/service.ts';
import { recordEvent } from '../../src/store/messages.ts';
import { call, startWebhookReceiver, subscribe } from '../peers/webhook-receiver.ts';
import { ADMIN_TOKEN, openAccount, post, smsBody, startService, type TestAccount } from '../support/service.ts';

const INVALID = 'Invalid request, a field has the wrong type or value';
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
/** What GET /v1/webhooks says of an endpoint that was never disabled. */
const ENABLED = { disabled_at: null, disabled_reason: null };
const ALL_TYPES = [
  'email.sent', 'email.delivered', 'email.deferred', 'email.bounced', 'email.failed', 'email.dropped', 'email.opened', 'email.clicked',
  'email.unsubscribed', 'email.complained', 'email.certified', 'email.received', 'email.scheduled', 'email.cancelled',
  'sms.sent', 'sms.delivered', 'sms.failed', 'sms.dropped', 'sms.received', 'sms.opted_out', 'sms.opted_in', 'sms.scheduled', 'sms.cancelled',
  'whatsapp.sent', 'whatsapp.delivered', 'whatsapp.read', 'whatsapp.failed',
  'whatsapp.dropped', 'whatsapp.received', 'whatsapp.opted_out', 'whatsapp.opted_in', 'whatsapp.scheduled', 'whatsapp.cancelled',
];

function admin(service: Service, method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown): Promise<LightMyRequestResponse> {
  return service.http.inject({
    method, url,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

/** An SMS taken by the capture transport: its sms.sent event is recorded. */
async function sentSms(service: Service, account: TestAccount): Promise<string> {
  const msgid = (await post(service, '/v1/sms/send', account.apiKey, smsBody())).json().messages[0].msgid as string;
  await service.worker.drain();
  return msgid;
}

// ---- settings ----

test('a new account has no webhook: no URL, no secret, every event type', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await call(service, 'GET', '/v1/webhooks', account.apiKey);
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), { url: null, secret: null, events: ALL_TYPES, ...ENABLED });
});

test('setting a URL makes the signing secret, which a later change of URL keeps', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const first = await call(service, 'PUT', '/v1/webhooks', account.apiKey, { url: 'https://hooks.example.com/a' });
  assert.equal(first.statusCode, 200);
  assert.match(first.json().secret, SECRET);
  assert.deepStrictEqual(first.json(), { url: 'https://hooks.example.com/a', secret: first.json().secret, events: ALL_TYPES, ...ENABLED });
  const second = await call(service, 'PUT', '/v1/webhooks', account.apiKey, { url: 'https://hooks.example.com/b' });
  assert.deepStrictEqual(second.json(), { url: 'https://hooks.example.com/b', secret: first.json().secret, events: ALL_TYPES, ...ENABLED });
  assert.deepStrictEqual((await call(service, 'GET', '/v1/webhooks', account.apiKey)).json(), second.json());
});

test('an event filter is kept in catalogue order without repeats, and null sets every type again', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const filtered = await call(service, 'PUT', '/v1/webhooks', account.apiKey, { url: 'https://hooks.example.com/a', events: ['sms.failed', 'email.bounced', 'sms.failed'] });
  assert.deepStrictEqual(filtered.json().events, ['email.bounced', 'sms.failed']);
  const all = await call(service, 'PUT', '/v1/webhooks', account.apiKey, { url: 'https://hooks.example.com/a', events: null });
  assert.deepStrictEqual(all.json().events, ALL_TYPES);
});

for (const [name, body, detail] of [
  ['no url field', { events: null }, 'url: is required (null: no webhooks)'],
  ['a URL that is not http(s)', { url: 'ftp://hooks.example.com/a' }, 'url: must be null or an http(s) URL'],
  ['a URL that is not a URL', { url: 'hooks.example.com' }, 'url: must be null or an http(s) URL'],
  ['a URL with credentials', { url: 'https://user:pw@hooks.example.com/a' }, 'url: must not carry credentials (user:password@)'],
  ['an empty filter', { url: 'https://hooks.example.com/a', events: [] }, `events: must be null (every type) or a non-empty array of event types: ${ALL_TYPES.join(', ')}`],
  ['an unknown event type', { url: 'https://hooks.example.com/a', events: ['email.read'] }, `events: must be null (every type) or a non-empty array of event types: ${ALL_TYPES.join(', ')}`],
  ['a secret of its own', { url: 'https://hooks.example.com/a', secret: 'whsec_AAAA' }, 'secret: is made by herald; rotate it with POST /v1/webhooks/secret/rotate'],
  ['an unknown field', { url: 'https://hooks.example.com/a', filter: [] }, 'filter: unknown field'],
] as const) {
  test(`PUT /v1/webhooks with ${name} answers 400 and changes nothing`, async (t) => {
    const service = await startService(t);
    const account = await openAccount(service);
    const res = await call(service, 'PUT', '/v1/webhooks', account.apiKey, body);
    assert.equal(res.statusCode, 400);
    assert.deepStrictEqual(res.json(), { message: INVALID, detail });
    assert.deepStrictEqual((await call(service, 'GET', '/v1/webhooks', account.apiKey)).json(), { url: null, secret: null, events: ALL_TYPES, ...ENABLED });
  });
}

// ---- the private-address guard ----

for (const [url, detail] of [
  ['http://127.0.0.1:8080/hook', 'url: refused to post to 127.0.0.1: 127.0.0.1 is a private or reserved address'],
  ['http://169.254.169.254/latest/meta-data', 'url: refused to post to 169.254.169.254: 169.254.169.254 is a private or reserved address'],
  ['http://[::1]/hook', 'url: refused to post to [::1]: ::1 is a private or reserved address'],
  ['https://10.1.2.3/hook', 'url: refused to post to 10.1.2.3: 10.1.2.3 is a private or reserved address'],
] as const) {
  test(`a webhook URL at a private address (${url}) is refused unless HERALD_FETCH_ALLOW_PRIVATE`, async (t) => {
    const service = await startService(t, { env: { HERALD_FETCH_ALLOW_PRIVATE: 'false' } });
    const account = await openAccount(service);
    const res = await call(service, 'PUT', '/v1/webhooks', account.apiKey, { url });
    assert.deepStrictEqual([res.statusCode, res.json()], [400, { message: INVALID, detail }]);
    assert.equal((await call(service, 'GET', '/v1/webhooks', account.apiKey)).json().url, null);
  });
}

test('a host name that resolves to a loopback address is refused too', async (t) => {
  const service = await startService(t, { env: { HERALD_FETCH_ALLOW_PRIVATE: 'false' } });
  const account = await openAccount(service);
  const res = await call(service, 'PUT', '/v1/webhooks', account.apiKey, { url: 'http://localhost:9/hook' });
  assert.equal(res.statusCode, 400);
  assert.match(res.json().detail, /^url: refused to post to localhost: (127\.0\.0\.1|::1) is a private or reserved address$/);
});

test('a private URL the operator set is still refused when the event is posted: nothing reaches it', async (t) => {
  const service = await startService(t, { env: { HERALD_FETCH_ALLOW_PRIVATE: 'false' } });
  const receiver = await startWebhookReceiver(t);
  const account = await openAccount(service);
  assert.equal((await admin(service, 'PATCH', `/admin/v1/accounts/${account.id}`, { webhookUrl: receiver.url })).statusCode, 200);
  await sentSms(service, account);
  await service.webhooks.drain();

  const [delivery] = (await call(service, 'GET', '/v1/webhooks/deliveries', account.apiKey)).json().data;
  const details = (await call(service, 'GET', `/v1/webhooks/deliveries/${delivery.id}`, account.apiKey)).json();
  assert.deepStrictEqual(details.attempts.map((a: { status_code: number | null; error: string }) => [a.status_code, a.error]), [
    [null, 'refused to post to 127.0.0.1: 127.0.0.1 is a private or reserved address'],
  ]);
  assert.deepStrictEqual([receiver.received, receiver.rejected], [[], []]);
});

// ---- what is posted ----

test('the filter decides which events are posted: types left out get no delivery at all', async (t) => {
  const service = await startService(t);
  const receiver = await startWebhookReceiver(t);
  const account = await openAccount(service);
  await subscribe(service, account.apiKey, receiver, ['sms.delivered']);
  const msgid = await sentSms(service, account);
  await service.deps.db.transaction().execute((tx) =>
    recordEvent(tx, { messageId: msgid, status: 'delivered', eventId: uuidv7(), at: service.deps.clock(), data: { peer: 'smsc', response: 'stat:DELIVRD err:000' } }));
  await service.webhooks.drain();

  assert.deepStrictEqual(receiver.received.map((e) => e.payload.type), ['sms.delivered']);
  assert.deepStrictEqual((await call(service, 'GET', '/v1/webhooks/deliveries', account.apiKey)).json().data.map((d: { type: string }) => d.type), ['sms.delivered']);
});

test('a test event is queued with 202, posted signed whatever the filter, and listed without a msgid', async (t) => {
  const service = await startService(t);
  const receiver = await startWebhookReceiver(t);
  const account = await openAccount(service);
  const secret = await subscribe(service, account.apiKey, receiver, ['sms.failed']);
  const res = await call(service, 'POST', '/v1/webhooks/test', account.apiKey);
  assert.equal(res.statusCode, 202);
  assert.deepStrictEqual({ ...(res.json() as Record<string, unknown>), id: '', created_at: '', updated_at: '', next_attempt_at: '' }, {
    id: '', type: 'webhook.test', msgid: null, status: 'pending', attempt_count: 0, next_attempt_at: '', last_status_code: null, last_error: null,
    created_at: '', updated_at: '',
  });
  await service.webhooks.drain();

  const [event] = receiver.received;
  assert.equal(event?.id, res.json().id);
  assert.deepStrictEqual(event?.verifiedBy, [secret]);
  assert.deepStrictEqual(event?.payload, {
    type: 'webhook.test', timestamp: res.json().created_at,
    data: { account: account.id, message: 'A test event from herald: your endpoint is reachable and verifies signatures.' },
  });
  const listed = (await call(service, 'GET', `/v1/webhooks/deliveries/${res.json().id}`, account.apiKey)).json();
  assert.deepStrictEqual([listed.status, listed.attempt_count, listed.last_status_code], ['succeeded', 1, 200]);
});

test('a test event without a webhook URL answers 409 No webhook URL is set', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await call(service, 'POST', '/v1/webhooks/test', account.apiKey);
  assert.deepStrictEqual([res.statusCode, res.json()], [409, { message: 'No webhook URL is set' }]);
});

test('an event recorded in the service reaches the receiver at once, without waiting for the dispatcher\'s poll', async (t) => {
  const service = await startService(t, { worker: true, webhookOptions: { pollMs: 60_000 }, workerOptions: { pollMs: 60_000 } });
  const receiver = await startWebhookReceiver(t);
  const account = await openAccount(service);
  await subscribe(service, account.apiKey, receiver);
  const msgid = (await post(service, '/v1/sms/send', account.apiKey, smsBody())).json().messages[0].msgid as string;

  const deadline = Date.now() + 5000;
  while (receiver.received.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepStrictEqual(receiver.received.map((e) => [e.payload.type, e.payload.data.msgid]), [['sms.sent', msgid]]);
});

// ---- the delivery log ----

test('the delivery log lists newest first, a page at a time, and filters by status', async (t) => {
  const service = await startService(t);
  const receiver = await startWebhookReceiver(t);
  const account = await openAccount(service);
  await subscribe(service, account.apiKey, receiver);
  const ids: string[] = [];
  for (let i = 0; i < 3; i += 1) ids.push((await call(service, 'POST', '/v1/webhooks/test', account.apiKey)).json().id);
  await service.webhooks.drain();
  await receiver.down();
  const pendingId = (await call(service, 'POST', '/v1/webhooks/test', account.apiKey)).json().id as string;
  await service.webhooks.drain();

  const first = (await call(service, 'GET', '/v1/webhooks/deliveries?limit=2', account.apiKey)).json();
  assert.deepStrictEqual(first.data.map((d: { id: string }) => d.id), [pendingId, ids[2]]);
  const second = (await call(service, 'GET', `/v1/webhooks/deliveries?limit=2&cursor=${first.next_cursor}`, account.apiKey)).json();
  assert.deepStrictEqual([second.data.map((d: { id: string }) => d.id), second.next_cursor], [[ids[1], ids[0]], null]);
  const pending = (await call(service, 'GET', '/v1/webhooks/deliveries?status=pending', account.apiKey)).json();
  assert.deepStrictEqual(pending.data.map((d: { id: string; attempt_count: number }) => [d.id, d.attempt_count]), [[pendingId, 1]]);
});

test('a bad status filter answers 400 with what is allowed', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await call(service, 'GET', '/v1/webhooks/deliveries?status=lost', account.apiKey);
  assert.deepStrictEqual([res.statusCode, res.json()], [400, { message: INVALID, detail: 'status must be one of pending, succeeded, failed' }]);
});

/** Two accounts whose webhooks post to one receiver: what one may see or do of the other's deliveries. */
async function twoSubscribedAccounts(t: TestContext) {
  const service = await startService(t);
  const receiver = await startWebhookReceiver(t);
  const owner = await openAccount(service);
  const other = await openAccount(service, { name: 'other' });
  await subscribe(service, owner.apiKey, receiver);
  await call(service, 'PUT', '/v1/webhooks', other.apiKey, { url: receiver.url });
  return { service, owner, other };
}

test('another account\'s delivery is not found: not listed, not shown, not retried', async (t) => {
  const { service, owner, other } = await twoSubscribedAccounts(t);
  const id = (await call(service, 'POST', '/v1/webhooks/test', owner.apiKey)).json().id as string;

  const shown = await call(service, 'GET', `/v1/webhooks/deliveries/${id}`, other.apiKey);
  assert.deepStrictEqual([shown.statusCode, shown.json()], [404, { message: 'Not found' }]);
  const retried = await call(service, 'POST', `/v1/webhooks/deliveries/${id}/retry`, other.apiKey);
  assert.deepStrictEqual([retried.statusCode, retried.json()], [404, { message: 'Not found' }]);
  assert.deepStrictEqual((await call(service, 'GET', '/v1/webhooks/deliveries', other.apiKey)).json(), { data: [], next_cursor: null });
  assert.equal((await call(service, 'GET', `/v1/webhooks/deliveries/${id}`, owner.apiKey)).statusCode, 200);
});

// ---- the operator's view ----

test('the operator sees the webhook secret and filter in the account body and can set the filter', async (t) => {
  const service = await startService(t);
  const created = await admin(service, 'POST', '/admin/v1/accounts', { name: 'acme', webhookUrl: 'https://hooks.example.com/a', webhookEvents: ['email.bounced'] });
  assert.equal(created.statusCode, 201);
  const { account, apiKey } = created.json();
  assert.match(account.webhookSecret, SECRET);
  assert.deepStrictEqual([account.webhookUrl, account.webhookEvents], ['https://hooks.example.com/a', ['email.bounced']]);

  const patched = await admin(service, 'PATCH', `/admin/v1/accounts/${account.id}`, { webhookEvents: null });
  assert.deepStrictEqual([patched.json().webhookEvents, patched.json().webhookSecret], [null, account.webhookSecret]);
  assert.deepStrictEqual((await call(service, 'GET', '/v1/webhooks', apiKey.apiKey)).json(), {
    url: 'https://hooks.example.com/a', secret: account.webhookSecret, events: ALL_TYPES, ...ENABLED,
  });
  const shown = await admin(service, 'GET', `/admin/v1/accounts/${account.id}`);
  assert.deepStrictEqual([shown.json().webhookSecret, shown.json().webhookEvents], [account.webhookSecret, null]);
});

test('an operator\'s unknown event type answers 400', async (t) => {
  const service = await startService(t);
  const res = await admin(service, 'POST', '/admin/v1/accounts', { name: 'acme', webhookEvents: ['sms.read'] });
  assert.deepStrictEqual([res.statusCode, res.json()], [400, {
    message: INVALID, detail: `webhookEvents: must be null (every type) or a non-empty array of event types: ${ALL_TYPES.join(', ')}`,
  }]);
});

// ---- retrying every failed delivery since a time ----

/** Test events created a minute apart from 09:01, their schedules spent (as the dispatcher leaves a delivery it gave up on). */
async function failedDeliveries(service: Service, account: TestAccount, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const id = (await call(service, 'POST', '/v1/webhooks/test', account.apiKey)).json().id as string;
    await service.deps.db.updateTable('webhook_deliveries').set({ status: 'failed', created_at: Date.parse('2030-01-01T09:00:00Z') + (i + 1) * 60_000 }).where('id', '=', id).execute();
    ids.push(id);
  }
  return ids;
}

test('retrying every failed delivery since a time posts those created since then again, and leaves older ones failed', async (t) => {
  const service = await startService(t);
  const receiver = await startWebhookReceiver(t);
  const account = await openAccount(service);
  await subscribe(service, account.apiKey, receiver);
  const [older, since, newer] = await failedDeliveries(service, account, 3);
  const res = await call(service, 'POST', '/v1/webhooks/deliveries/retry-failed', account.apiKey, { since: '2030-01-01T09:02:00Z' });
  assert.deepStrictEqual([res.statusCode, res.json()], [202, { retried: 2 }]);
  await service.webhooks.drain();
  assert.deepStrictEqual(receiver.received.map((e) => e.id).sort(), [since, newer].sort());
  const statuses = (await call(service, 'GET', '/v1/webhooks/deliveries', account.apiKey)).json().data.map((d: { id: string; status: string }) => [d.id, d.status]);
  assert.deepStrictEqual(statuses, [[newer, 'succeeded'], [since, 'succeeded'], [older, 'failed']]);
});

test('retrying every failed delivery touches no other account\'s deliveries', async (t) => {
  const { service, owner, other } = await twoSubscribedAccounts(t);
  const [failed] = await failedDeliveries(service, owner, 1);
  const res = await call(service, 'POST', '/v1/webhooks/deliveries/retry-failed', other.apiKey, { since: 0 });
  assert.deepStrictEqual([res.statusCode, res.json()], [202, { retried: 0 }]);
  assert.equal((await call(service, 'GET', `/v1/webhooks/deliveries/${failed}`, owner.apiKey)).json().status, 'failed');
});

test('retrying every failed delivery needs a time, and a webhook URL', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const noUrl = await call(service, 'POST', '/v1/webhooks/deliveries/retry-failed', account.apiKey, { since: '2030-01-01T00:00:00Z' });
  assert.deepStrictEqual([noUrl.statusCode, noUrl.json()], [409, { message: 'No webhook URL is set' }]);
  for (const body of [{}, { since: 'last week' }]) {
    const res = await call(service, 'POST', '/v1/webhooks/deliveries/retry-failed', account.apiKey, body);
    assert.deepStrictEqual([res.statusCode, res.json()], [400, { message: INVALID, detail: 'since: must be an ISO-8601 time or epoch milliseconds' }], JSON.stringify(body));
  }
});
