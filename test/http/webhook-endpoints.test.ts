// An account's several webhook endpoints (/v1/webhooks/endpoints): each gets exactly the
// events its filter wants, signed with its own secret, at a real receiver on loopback
// that verifies every post with the `standardwebhooks` package. The first endpoint is
// still PUT /v1/webhooks's. Runs on SQLite, and on PostgreSQL under test/run-postgres.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { uuidv7, uuidv7Source } from '../../src/app/uuidv7-source.ts';
import type { Service } from '../../src/service.ts';
import { recordEvent } from '../../src/store/messages.ts';
import { endpointDeliveryId } from '../../src/store/webhook-deliveries.ts';
import { call, startWebhookReceiver, subscribe, type WebhookReceiver } from '../peers/webhook-receiver.ts';
import { keyWithScopes, openAccount, post, smsBody, startService, type TestAccount } from '../support/service.ts';

const INVALID = 'Invalid request, a field has the wrong type or value';
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

function request(service: Service, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, apiKey: string, body?: unknown): Promise<LightMyRequestResponse> {
  return service.http.inject({
    method, url,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

/** Adds an endpoint for the receiver (POST /v1/webhooks/endpoints) and makes the receiver trust its secret. */
async function addEndpoint(service: Service, account: TestAccount, receiver: WebhookReceiver, extra: Record<string, unknown> = {}): Promise<{ id: string; secret: string }> {
  const res = await request(service, 'POST', '/v1/webhooks/endpoints', account.apiKey, { url: receiver.url, ...extra });
  assert.equal(res.statusCode, 201, res.body);
  const { id, secret } = res.json() as { id: string; secret: string };
  receiver.secrets = [secret];
  return { id, secret };
}

/** An SMS taken by the capture transport (its sms.sent recorded), then delivered and failed reports on it. */
async function smsWithThreeEvents(service: Service, account: TestAccount): Promise<string> {
  const msgid = (await post(service, '/v1/sms/send', account.apiKey, smsBody())).json().messages[0].msgid as string;
  await service.worker.drain();
  for (const status of ['delivered', 'failed'] as const) {
    await service.deps.db.transaction().execute((tx) =>
      recordEvent(tx, { messageId: msgid, status, eventId: uuidv7(), at: service.deps.clock(), data: { peer: 'smsc', response: `stat:${status}` } }));
  }
  return msgid;
}

test('three endpoints with different filters each receive exactly their events, each signed with its own secret', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const [first, second, third] = [await startWebhookReceiver(t), await startWebhookReceiver(t), await startWebhookReceiver(t)];
  const firstSecret = await subscribe(service, account.apiKey, first, ['sms.sent']);
  const two = await addEndpoint(service, account, second, { event_types: ['sms.delivered', 'sms.failed'] });
  const three = await addEndpoint(service, account, third);
  const msgid = await smsWithThreeEvents(service, account);
  await service.webhooks.drain();

  assert.deepStrictEqual(first.received.map((e) => [e.payload.type, e.verifiedBy]), [['sms.sent', [firstSecret]]]);
  assert.deepStrictEqual(second.received.map((e) => [e.payload.type, e.verifiedBy]), [['sms.delivered', [two.secret]], ['sms.failed', [two.secret]]]);
  assert.deepStrictEqual(third.received.map((e) => [e.payload.type, e.verifiedBy]), [['sms.sent', [three.secret]], ['sms.delivered', [three.secret]], ['sms.failed', [three.secret]]]);
  // One event, one body: the same bytes at every endpoint that wants it; each endpoint its own webhook-id.
  assert.equal(third.received[1]?.body, second.received[0]?.body);
  assert.notEqual(third.received[1]?.id, second.received[0]?.id);
  assert.deepStrictEqual(new Set([firstSecret, two.secret, three.secret]).size, 3);
  assert.equal(third.received[0]?.payload.data.msgid, msgid);
});

test('a secret of one endpoint does not verify another endpoint\'s posts', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const [a, b] = [await startWebhookReceiver(t), await startWebhookReceiver(t)];
  const one = await addEndpoint(service, account, a);
  await addEndpoint(service, account, b);
  b.secrets = [one.secret];
  await smsWithThreeEvents(service, account);
  await service.webhooks.drain();
  assert.equal(a.received.length, 3);
  assert.deepStrictEqual([b.received.length, b.rejected.length > 0], [0, true]);
});

test('an account without a URL gets its first endpoint from POST, which GET /v1/webhooks then shows', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await request(service, 'POST', '/v1/webhooks/endpoints', account.apiKey, { url: 'https://hooks.example.com/a', description: 'Orders', event_types: ['sms.sent'] });
  assert.equal(res.statusCode, 201);
  const body = res.json();
  assert.match(body.secret, SECRET);
  assert.deepStrictEqual(body, {
    id: account.id, url: 'https://hooks.example.com/a', description: 'Orders', event_types: ['sms.sent'], event_filter: ['sms.sent'],
    secret: body.secret, enabled: true, disabled_at: null, disabled_reason: null, first: true, created_at: null,
  });
  assert.deepStrictEqual((await call(service, 'GET', '/v1/webhooks', account.apiKey)).json(), {
    url: 'https://hooks.example.com/a', secret: body.secret, events: ['sms.sent'], disabled_at: null, disabled_reason: null,
  });
});

test('the legacy PUT /v1/webhooks still drives the first endpoint, listed before the others', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const [first, other] = [await startWebhookReceiver(t), await startWebhookReceiver(t)];
  await subscribe(service, account.apiKey, first);
  const added = await addEndpoint(service, account, other, { description: 'Analytics' });
  await call(service, 'PUT', '/v1/webhooks', account.apiKey, { url: 'https://hooks.example.com/moved', events: ['sms.failed'] });
  const list = (await request(service, 'GET', '/v1/webhooks/endpoints', account.apiKey)).json().data as { id: string; url: string; event_filter: unknown; first: boolean; description: string | null }[];
  assert.deepStrictEqual(list.map((e) => [e.id, e.url, e.event_filter, e.first, e.description]), [
    [account.id, 'https://hooks.example.com/moved', ['sms.failed'], true, null],
    [added.id, other.url, null, false, 'Analytics'],
  ]);
});

test('the first endpoint\'s log stays at /v1/webhooks/deliveries; another endpoint has its own', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const [first, other] = [await startWebhookReceiver(t), await startWebhookReceiver(t)];
  await subscribe(service, account.apiKey, first, ['sms.sent']);
  const added = await addEndpoint(service, account, other, { event_types: ['sms.failed'] });
  await smsWithThreeEvents(service, account);
  await service.webhooks.drain();
  const types = (res: LightMyRequestResponse) => (res.json().data as { type: string; status: string }[]).map((d) => [d.type, d.status]);
  assert.deepStrictEqual(types(await call(service, 'GET', '/v1/webhooks/deliveries', account.apiKey)), [['sms.sent', 'succeeded']]);
  assert.deepStrictEqual(types(await request(service, 'GET', `/v1/webhooks/endpoints/${added.id}/deliveries`, account.apiKey)), [['sms.failed', 'succeeded']]);
  assert.deepStrictEqual(types(await request(service, 'GET', `/v1/webhooks/endpoints/${account.id}/deliveries`, account.apiKey)), [['sms.sent', 'succeeded']]);
  // A delivery of another endpoint is read and replayed by id at the account's log.
  const [delivery] = (await request(service, 'GET', `/v1/webhooks/endpoints/${added.id}/deliveries`, account.apiKey)).json().data as { id: string }[];
  const replay = await call(service, 'POST', `/v1/webhooks/deliveries/${delivery?.id}/retry`, account.apiKey);
  assert.equal(replay.statusCode, 202);
  await service.webhooks.drain();
  assert.deepStrictEqual(other.received.map((e) => e.id), [delivery?.id, delivery?.id]);
});

test('disabling one endpoint stops only it, and enabling it again lets new events through', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const [a, b] = [await startWebhookReceiver(t), await startWebhookReceiver(t)];
  const one = await addEndpoint(service, account, a);
  await addEndpoint(service, account, b);
  const off = await request(service, 'PATCH', `/v1/webhooks/endpoints/${one.id}`, account.apiKey, { enabled: false });
  assert.equal(off.statusCode, 200);
  assert.deepStrictEqual([off.json().enabled, off.json().disabled_reason], [false, 'disabled by the account']);
  await smsWithThreeEvents(service, account);
  await service.webhooks.drain();
  assert.deepStrictEqual([a.received.length, b.received.length], [0, 3]);

  const on = await request(service, 'PATCH', `/v1/webhooks/endpoints/${one.id}`, account.apiKey, { enabled: true });
  assert.deepStrictEqual([on.json().enabled, on.json().disabled_at, on.json().disabled_reason], [true, null, null]);
  await smsWithThreeEvents(service, account);
  await service.webhooks.drain();
  assert.deepStrictEqual([a.received.length, b.received.length], [3, 6]);
});

test('disabling the first endpoint stops it and GET /v1/webhooks says so', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const [first, other] = [await startWebhookReceiver(t), await startWebhookReceiver(t)];
  await subscribe(service, account.apiKey, first);
  await addEndpoint(service, account, other);
  await request(service, 'PATCH', `/v1/webhooks/endpoints/${account.id}`, account.apiKey, { enabled: false });
  await smsWithThreeEvents(service, account);
  await service.webhooks.drain();
  assert.deepStrictEqual([first.received.length, other.received.length], [0, 3]);
  assert.equal((await call(service, 'GET', '/v1/webhooks', account.apiKey)).json().disabled_reason, 'disabled by the account');
});

test('an endpoint that answers 410 Gone is disabled alone; the others keep receiving', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const [a, b] = [await startWebhookReceiver(t), await startWebhookReceiver(t)];
  await addEndpoint(service, account, b);
  const gone = await addEndpoint(service, account, a);
  a.answerWith(410);
  await smsWithThreeEvents(service, account);
  await service.webhooks.drain();
  const endpoint = (await request(service, 'GET', `/v1/webhooks/endpoints/${gone.id}`, account.apiKey)).json();
  assert.deepStrictEqual([endpoint.enabled, endpoint.disabled_reason], [false, 'the endpoint answered 410 Gone']);
  assert.equal(b.received.length, 3);
  // b is the account's first endpoint (the account had no URL when it was added): still enabled.
  assert.deepStrictEqual((await call(service, 'GET', '/v1/webhooks', account.apiKey)).json().disabled_at, null);
});

test('an account has at most 20 endpoints: the 21st is refused with 403 and a clear detail', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  await call(service, 'PUT', '/v1/webhooks', account.apiKey, { url: 'https://hooks.example.com/0' });
  for (let i = 1; i < 20; i++) {
    assert.equal((await request(service, 'POST', '/v1/webhooks/endpoints', account.apiKey, { url: `https://hooks.example.com/${i}` })).statusCode, 201);
  }
  const refused = await request(service, 'POST', '/v1/webhooks/endpoints', account.apiKey, { url: 'https://hooks.example.com/20' });
  assert.deepStrictEqual([refused.statusCode, refused.json()], [403, { message: 'Account quota exceeded', detail: 'an account has at most 20 webhook endpoints: delete one first' }]);
  assert.equal((await request(service, 'GET', '/v1/webhooks/endpoints', account.apiKey)).json().data.length, 20);
});

test('another account\'s endpoint is 404 to every route, and its id is not listed', async (t) => {
  const service = await startService(t);
  const [mine, theirs] = [await openAccount(service), await openAccount(service, { name: 'Other' })];
  const receiver = await startWebhookReceiver(t);
  const their = await addEndpoint(service, theirs, receiver);
  const other = await addEndpoint(service, theirs, receiver);
  const NOT_FOUND = { message: 'Not found' };
  for (const id of [their.id, other.id]) {
    for (const [method, url, body] of [
      ['GET', `/v1/webhooks/endpoints/${id}`, undefined],
      ['PATCH', `/v1/webhooks/endpoints/${id}`, { enabled: false }],
      ['DELETE', `/v1/webhooks/endpoints/${id}`, undefined],
      ['POST', `/v1/webhooks/endpoints/${id}/secret/rotate`, undefined],
      ['POST', `/v1/webhooks/endpoints/${id}/test`, { type: 'webhook.test' }],
      ['GET', `/v1/webhooks/endpoints/${id}/deliveries`, undefined],
    ] as const) {
      const res = await request(service, method, url, mine.apiKey, body);
      assert.deepStrictEqual([method, url, res.statusCode, res.json()], [method, url, 404, NOT_FOUND]);
    }
  }
  assert.deepStrictEqual((await request(service, 'GET', '/v1/webhooks/endpoints', mine.apiKey)).json(), { data: [] });
  assert.equal((await request(service, 'GET', `/v1/webhooks/endpoints/${their.id}`, theirs.apiKey)).statusCode, 200);
});

test('a key without the webhooks scope is refused on the endpoints routes', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const smsKey = await keyWithScopes(service, account.id, ['sms']);
  for (const [method, url] of [['GET', '/v1/webhooks/endpoints'], ['POST', '/v1/webhooks/endpoints'], ['GET', `/v1/webhooks/endpoints/${account.id}/deliveries`]] as const) {
    const res = await request(service, method, url, smsKey, method === 'POST' ? { url: 'https://hooks.example.com/a' } : undefined);
    assert.deepStrictEqual([url, res.statusCode, res.json()], [url, 401, { message: 'API key not authorized.' }]);
  }
});

test('a test event of a type asked for is posted to that endpoint only, signed with its secret', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const [a, b] = [await startWebhookReceiver(t), await startWebhookReceiver(t)];
  await addEndpoint(service, account, a);
  const two = await addEndpoint(service, account, b, { event_types: ['sms.failed'] });
  const res = await request(service, 'POST', `/v1/webhooks/endpoints/${two.id}/test`, account.apiKey, { type: 'email.bounced' });
  assert.equal(res.statusCode, 202);
  assert.deepStrictEqual([res.json().type, res.json().msgid, res.json().status], ['email.bounced', null, 'pending']);
  await service.webhooks.drain();
  assert.equal(a.received.length, 0);
  assert.deepStrictEqual(b.received.map((e) => [e.id, e.payload.type, e.verifiedBy]), [[res.json().id, 'email.bounced', [two.secret]]]);
});

test('a test event of a type that does not exist is refused with 400', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const added = await request(service, 'POST', '/v1/webhooks/endpoints', account.apiKey, { url: 'https://hooks.example.com/a' });
  const res = await request(service, 'POST', `/v1/webhooks/endpoints/${added.json().id}/test`, account.apiKey, { type: 'email.read' });
  assert.equal(res.statusCode, 400);
  assert.equal(res.json().message, INVALID);
});

test('rotating one endpoint\'s secret signs with the new and the previous secret, and leaves the others alone', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const [a, b] = [await startWebhookReceiver(t), await startWebhookReceiver(t)];
  const one = await addEndpoint(service, account, a);
  const two = await addEndpoint(service, account, b);
  const before = service.deps.clock();
  const rotated = await request(service, 'POST', `/v1/webhooks/endpoints/${one.id}/secret/rotate`, account.apiKey);
  const after = service.deps.clock();
  assert.equal(rotated.statusCode, 200);
  const fresh = rotated.json().secret as string;
  assert.match(fresh, SECRET);
  const expires = Date.parse(rotated.json().previous_secret_expires_at as string);
  assert.ok(expires >= before + 24 * 3_600_000 && expires <= after + 24 * 3_600_000, `the previous secret signs for 24 hours (${rotated.json().previous_secret_expires_at})`);
  a.secrets = [fresh, one.secret];
  await smsWithThreeEvents(service, account);
  await service.webhooks.drain();
  assert.deepStrictEqual(a.received[0]?.verifiedBy, [fresh, one.secret]);
  assert.deepStrictEqual(b.received[0]?.verifiedBy, [two.secret]);
  assert.equal((await request(service, 'GET', `/v1/webhooks/endpoints/${two.id}`, account.apiKey)).json().secret, two.secret);
});

test('PATCH changes only the fields it names', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  await call(service, 'PUT', '/v1/webhooks', account.apiKey, { url: 'https://hooks.example.com/first' });
  const added = (await request(service, 'POST', '/v1/webhooks/endpoints', account.apiKey, { url: 'https://hooks.example.com/a', description: 'A', event_types: ['sms.sent'] })).json();
  const res = await request(service, 'PATCH', `/v1/webhooks/endpoints/${added.id}`, account.apiKey, { url: 'https://hooks.example.com/b' });
  assert.deepStrictEqual(res.json(), { ...added, url: 'https://hooks.example.com/b' });
  const cleared = await request(service, 'PATCH', `/v1/webhooks/endpoints/${added.id}`, account.apiKey, { description: null, event_types: null });
  assert.deepStrictEqual([cleared.json().description, cleared.json().event_filter, cleared.json().url], [null, null, 'https://hooks.example.com/b']);
});

for (const [name, body, detail] of [
  ['no url', { description: 'x' }, 'url is required'],
  ['a URL that is not http(s)', { url: 'ftp://hooks.example.com/a' }, 'url: must be null or an http(s) URL'],
  ['an unknown event type', { url: 'https://hooks.example.com/a', event_types: ['email.read'] }, null],
  ['a secret of its own', { url: 'https://hooks.example.com/a', secret: 'whsec_AAAA' }, 'secret is not a field of this request'],
] as const) {
  test(`POST /v1/webhooks/endpoints with ${name} answers 400 and adds nothing`, async (t) => {
    const service = await startService(t);
    const account = await openAccount(service);
    const res = await request(service, 'POST', '/v1/webhooks/endpoints', account.apiKey, body);
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().message, INVALID);
    if (detail !== null) assert.equal(res.json().detail, detail);
    assert.deepStrictEqual((await request(service, 'GET', '/v1/webhooks/endpoints', account.apiKey)).json(), { data: [] });
  });
}

test('deleting an endpoint removes it with its log; deleting the first clears its URL as PUT {url: null} does', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const [first, other] = [await startWebhookReceiver(t), await startWebhookReceiver(t)];
  const secret = await subscribe(service, account.apiKey, first);
  const added = await addEndpoint(service, account, other);
  await smsWithThreeEvents(service, account);
  await service.webhooks.drain();
  const [delivery] = (await request(service, 'GET', `/v1/webhooks/endpoints/${added.id}/deliveries`, account.apiKey)).json().data as { id: string }[];
  assert.equal((await request(service, 'DELETE', `/v1/webhooks/endpoints/${added.id}`, account.apiKey)).statusCode, 204);
  assert.equal((await call(service, 'GET', `/v1/webhooks/deliveries/${delivery?.id}`, account.apiKey)).statusCode, 404);
  assert.equal((await request(service, 'DELETE', `/v1/webhooks/endpoints/${account.id}`, account.apiKey)).statusCode, 204);
  assert.deepStrictEqual((await request(service, 'GET', '/v1/webhooks/endpoints', account.apiKey)).json(), { data: [] });
  const legacy = (await call(service, 'GET', '/v1/webhooks', account.apiKey)).json();
  assert.deepStrictEqual([legacy.url, legacy.secret], [null, secret]);
  assert.equal((await call(service, 'GET', '/v1/webhooks/deliveries', account.apiKey)).json().data.length, 3);
});

test('an endpoint receives one message\'s events in the order they happened while its receiver was down', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const [first, other] = [await startWebhookReceiver(t), await startWebhookReceiver(t)];
  await subscribe(service, account.apiKey, first);
  await addEndpoint(service, account, other);
  await other.down();
  await smsWithThreeEvents(service, account);
  await service.webhooks.drain();
  assert.deepStrictEqual(first.received.map((e) => e.payload.type), ['sms.sent', 'sms.delivered', 'sms.failed']);
  // Only the head of the message's line was tried at the endpoint that is down.
  const pending = (await request(service, 'GET', `/v1/webhooks/endpoints/${(await request(service, 'GET', '/v1/webhooks/endpoints', account.apiKey)).json().data[1].id}/deliveries`, account.apiKey)).json().data as { type: string; attempt_count: number }[];
  assert.deepStrictEqual(pending.map((d) => [d.type, d.attempt_count]), [['sms.failed', 0], ['sms.delivered', 0], ['sms.sent', 1]]);
});

test('an endpoint\'s delivery ids sort as the event ids they come from, even for events made in one millisecond', () => {
  const ids = uuidv7Source(() => Date.parse('2026-06-01T09:00:00Z'));
  const events = Array.from({ length: 1000 }, () => ids());
  const deliveries = events.map((event) => endpointDeliveryId(event, '019a0000-0000-7000-8000-000000000001'));
  assert.deepStrictEqual([...deliveries].sort(), deliveries);
  assert.equal(new Set(events.map((event) => endpointDeliveryId(event, '019a0000-0000-7000-8000-000000000002'))).size, 1000);
});
