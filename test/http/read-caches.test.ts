// The read caches of the send path (app/read-caches.ts): an account, a verified sender
// domain and an approved WhatsApp template are read once and kept a second. What must
// still hold: a change made through this process applies to the very next request; one
// made by another process (here: a write straight to the store, as the CLI makes it)
// within READ_CACHE_TTL_MS, and not later; amounts shown are never the cache's.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { READ_CACHE_TTL_MS } from '../../src/app/read-caches.ts';
import type { Service } from '../../src/service.ts';
import { updateAccount } from '../../src/store/accounts.ts';
import { insertSenderDomain, markSenderDomainVerified } from '../../src/store/sender-domains.ts';
import { ADMIN_TOKEN, addWhatsappTemplate, emailBody, get, openAccount, post, postFrom, send, smsBody, startService } from '../support/service.ts';

const T0 = Date.parse('2030-05-01T08:00:00.000Z');
const INACTIVE = { message: 'current service is not active' };

async function serviceAt(t: TestContext): Promise<{ service: Service; clock: { now: number } }> {
  const clock = { now: T0 };
  return { service: await startService(t, { clock: () => clock.now }), clock };
}

const admin = (service: Service, id: string, body: unknown): Promise<LightMyRequestResponse> => service.http.inject({
  method: 'PATCH', url: `/admin/v1/accounts/${id}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, payload: JSON.stringify(body),
});

test('an account suspended through the operator API is refused on its next send', async (t) => {
  const { service } = await serviceAt(t);
  const account = await openAccount(service);
  assert.equal((await post(service, '/v1/sms/send', account.apiKey, smsBody())).statusCode, 200);
  assert.equal((await admin(service, account.id, { active: false })).statusCode, 200);
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody());
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), INACTIVE);
});

test('a rate limit changed through the operator API counts from the next request', async (t) => {
  const { service } = await serviceAt(t);
  const account = await openAccount(service, { rateLimitPerSecond: 1000 });
  assert.equal((await post(service, '/v1/sms/send', account.apiKey, smsBody())).headers['ratelimit-limit'], '1000');
  assert.equal((await admin(service, account.id, { rateLimitPerSecond: 7 })).statusCode, 200);
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody());
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['ratelimit-limit'], '7');
});

test('an IP allow-list set with PATCH /v1/account applies to the next request', async (t) => {
  const { service } = await serviceAt(t);
  const account = await openAccount(service);
  assert.equal((await postFrom(service, '/v1/sms/send', { apiKey: account.apiKey, body: smsBody(), remoteAddress: '198.51.100.20' })).statusCode, 200);
  assert.equal((await send(service, 'PATCH', '/v1/account', account.apiKey, { ip_allow_list: ['192.0.2.7'] })).statusCode, 200);
  const refused = await postFrom(service, '/v1/sms/send', { apiKey: account.apiKey, body: smsBody(), remoteAddress: '198.51.100.20' });
  assert.equal(refused.statusCode, 403);
  assert.deepStrictEqual(refused.json(), { error: 'IP Not Allowed ' });
});

test('an account suspended by another process is still served within the second, refused from then on', async (t) => {
  const { service, clock } = await serviceAt(t);
  const account = await openAccount(service);
  assert.equal((await post(service, '/v1/sms/send', account.apiKey, smsBody())).statusCode, 200);
  await updateAccount(service.deps.db, account.id, clock.now, { active: false });
  clock.now += READ_CACHE_TTL_MS - 1;
  assert.equal((await post(service, '/v1/sms/send', account.apiKey, smsBody())).statusCode, 200);
  clock.now += 1;
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody());
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), INACTIVE);
});

test('GET /v1/account answers the messages left after the sends, not those of the cached account', async (t) => {
  const { service } = await serviceAt(t);
  const account = await openAccount(service, { messagesLeft: 50 });
  assert.equal((await get(service, '/v1/account', account.apiKey)).json().messages_left, 50);
  assert.equal((await post(service, '/v1/sms/send', account.apiKey, smsBody({ mobile_numbers: ['+5215512345678', '+5215512345679'] }))).statusCode, 200);
  assert.equal((await get(service, '/v1/account', account.apiKey)).json().messages_left, 48);
});

test('a sender domain verified after an email was refused for it is accepted at once', async (t) => {
  const { service } = await serviceAt(t);
  const account = await openAccount(service);
  const domainId = service.deps.newId();
  await insertSenderDomain(service.deps.db, { id: domainId, accountId: account.id, domain: 'example.net', verified: false, createdAt: service.deps.clock() });
  const body = emailBody({ from: { email: 'news@example.net', name: 'News' }, replyTo: { email: 'help@example.net', name: 'Help' } });
  const refused = await post(service, '/v1/email', account.apiKey, body);
  assert.equal(refused.statusCode, 401);
  assert.deepStrictEqual(refused.json(), { message: 'Domain not permitted. err 2' });
  await markSenderDomainVerified(service.deps.db, domainId, service.deps.clock());
  assert.equal((await post(service, '/v1/email', account.apiKey, body)).statusCode, 200);
});

test('a WhatsApp template added after a send named it is found by the next send', async (t) => {
  const { service } = await serviceAt(t);
  const account = await openAccount(service, { balance: 10_000, whatsappPrice: 100 });
  const id = service.deps.newId();
  const body = { destination: '5215512345678', templateId: id, params: ['Ana', '1234'] };
  const missing = await post(service, '/v1/whatsapp/sendTemplateMessage', account.apiKey, body);
  assert.equal(missing.statusCode, 400);
  assert.deepStrictEqual(missing.json(), { message: 'Could not find template' });
  await addWhatsappTemplate(service, account.id, { id });
  assert.equal((await post(service, '/v1/whatsapp/sendTemplateMessage', account.apiKey, body)).statusCode, 200);
});
