import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { Service } from '../../src/service.ts';
import { ADMIN_TOKEN, post, startService } from '../support/service.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const INVALID = 'Invalid request, a field has the wrong type or value';
const SMS = { message: 'Your code is 1234', mobile_numbers: ['+5215512345678'] };

/** A service whose clock stands still at T0 until the test moves it. */
async function serviceAt(t: TestContext): Promise<{ service: Service; clock: { now: number } }> {
  const clock = { now: T0 };
  const service = await startService(t, { clock: () => clock.now });
  return { service, clock };
}

function admin(service: Service, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown): Promise<LightMyRequestResponse> {
  return service.http.inject({
    method, url,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

/** Opens an account through the API; rate limit raised so sends in a test never hit it. */
async function createAccount(service: Service, fields: Record<string, unknown> = {}): Promise<{ id: string; apiKey: string; keyId: string }> {
  const res = await admin(service, 'POST', '/admin/v1/accounts', { name: 'acme', rateLimitPerSecond: 1000, ...fields });
  assert.equal(res.statusCode, 201, res.body);
  const body = res.json();
  return { id: body.account.id, apiKey: body.apiKey.apiKey, keyId: body.apiKey.id };
}

function accountAt(id: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id, name: 'acme', active: true, messagesLeft: 0, balance: 0, whatsappPrice: 0, rateLimitPerSecond: 2, ipAllowList: [], allowListAppliesTo: 'all',
    services: { email: true, sms: true, whatsapp: true }, webhookUrl: null, webhookSecret: null, webhookEvents: null, whatsappPhoneNumberId: null, whatsappAccessToken: null, whatsappBusinessAccountId: null, smsSenders: [],
    tracking: { opens: true, clicks: true },
    createdAt: '2030-01-01T00:00:00.000Z', updatedAt: '2030-01-01T00:00:00.000Z', ...fields,
  };
}

// ---- authentication ----

test('the operator API without a token answers 401', async (t) => {
  const { service } = await serviceAt(t);
  const res = await service.http.inject({ method: 'GET', url: '/admin/v1/accounts/x' });
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'Admin token missing or invalid' });
});

test('the operator API with a wrong token answers 401', async (t) => {
  const { service } = await serviceAt(t);
  const res = await service.http.inject({
    method: 'POST', url: '/admin/v1/accounts', headers: { authorization: 'Bearer not-the-admin-token', 'content-type': 'application/json' },
    payload: JSON.stringify({ name: 'acme' }),
  });
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'Admin token missing or invalid' });
});

test('an account\'s API key is not an admin token', async (t) => {
  const { service } = await serviceAt(t);
  const account = await createAccount(service);
  const res = await service.http.inject({ method: 'GET', url: `/admin/v1/accounts/${account.id}`, headers: { authorization: `Bearer ${account.apiKey}` } });
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'Admin token missing or invalid' });
});

// ---- accounts ----

test('creating an account answers 201 with the account and its first key of every scope', async (t) => {
  const { service } = await serviceAt(t);
  const res = await admin(service, 'POST', '/admin/v1/accounts', {
    name: 'acme', messagesLeft: 1000, balance: '12.50', whatsappPrice: 0.05, rateLimitPerSecond: 10, active: true,
    ipAllowList: ['10.0.0.1/8', '::ffff:192.0.2.7', '2001:DB8::1'], services: { whatsapp: false }, webhookUrl: 'https://hooks.example.com/herald',
  });
  assert.equal(res.statusCode, 201);
  const body = res.json();
  assert.match(body.account.id, UUID);
  assert.match(body.apiKey.id, UUID);
  assert.match(body.apiKey.apiKey, JWT);
  // A webhook URL comes with its signing secret: whsec_ and the base64 of 32 random bytes.
  assert.match(body.account.webhookSecret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.deepStrictEqual(body, {
    account: accountAt(body.account.id, {
      messagesLeft: 1000, balance: 12.5, whatsappPrice: 0.05, rateLimitPerSecond: 10,
      ipAllowList: ['10.0.0.0/8', '192.0.2.7', '2001:db8::1'], services: { email: true, sms: true, whatsapp: false },
      webhookUrl: 'https://hooks.example.com/herald', webhookSecret: body.account.webhookSecret,
    }),
    apiKey: { id: body.apiKey.id, apiKey: body.apiKey.apiKey, scopes: ['email', 'sms', 'whatsapp', 'webhooks', 'account'] },
  });
});

test('an account created with only a name gets the defaults', async (t) => {
  const { service } = await serviceAt(t);
  const res = await admin(service, 'POST', '/admin/v1/accounts', { name: '  acme  ' });
  assert.equal(res.statusCode, 201);
  assert.deepStrictEqual(res.json().account, accountAt(res.json().account.id));
});

test('the key returned by account creation sends an SMS', async (t) => {
  const { service } = await serviceAt(t);
  const account = await createAccount(service, { messagesLeft: 10 });
  const res = await post(service, '/v1/sms/send', account.apiKey, SMS);
  assert.equal(res.statusCode, 200);
  assert.equal(res.json().messages_left, 9);
});

test('reading an account shows its keys without the keys themselves, and its domains', async (t) => {
  const { service, clock } = await serviceAt(t);
  const account = await createAccount(service, { messagesLeft: 3 });
  clock.now += 1000;
  const key = (await admin(service, 'POST', `/admin/v1/accounts/${account.id}/api-keys`, { name: ' billing server ', scopes: ['sms'], expiresAt: '2030-02-01T00:00:00Z' })).json();
  await admin(service, 'POST', `/admin/v1/accounts/${account.id}/domains`, { domain: 'example.com', verified: true });
  await admin(service, 'DELETE', `/admin/v1/accounts/${account.id}/api-keys/${account.keyId}`);

  const res = await admin(service, 'GET', `/admin/v1/accounts/${account.id}`);
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), {
    ...accountAt(account.id, { messagesLeft: 3, rateLimitPerSecond: 1000 }),
    apiKeys: [
      { id: account.keyId, name: '', scopes: ['email', 'sms', 'whatsapp', 'webhooks', 'account'], createdAt: '2030-01-01T00:00:00.000Z', expiresAt: null, revokedAt: '2030-01-01T00:00:01.000Z', mode: 'live' },
      { id: key.id, name: 'billing server', scopes: ['sms'], createdAt: '2030-01-01T00:00:01.000Z', expiresAt: '2030-02-01T00:00:00.000Z', revokedAt: null, mode: 'live' },
    ],
    domains: [{ domain: 'example.com', verified: true }],
  });
});

test('reading an unknown account answers 404', async (t) => {
  const { service } = await serviceAt(t);
  const res = await admin(service, 'GET', '/admin/v1/accounts/01890000-0000-7000-8000-000000000000');
  assert.equal(res.statusCode, 404);
  assert.deepStrictEqual(res.json(), { message: 'Not found' });
});

test('updating an account changes the given fields and returns the account', async (t) => {
  const { service, clock } = await serviceAt(t);
  const account = await createAccount(service, { ipAllowList: ['192.0.2.1'], webhookUrl: 'https://hooks.example.com/a' });
  clock.now += 60_000;
  const res = await admin(service, 'PATCH', `/admin/v1/accounts/${account.id}`, {
    name: 'acme two', active: false, rateLimitPerSecond: 5, ipAllowList: [], allowListAppliesTo: 'keys', services: { sms: false }, webhookUrl: null, whatsappPrice: '0.0147',
  });
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), accountAt(account.id, {
    name: 'acme two', active: false, rateLimitPerSecond: 5, allowListAppliesTo: 'keys', services: { email: true, sms: false, whatsapp: true }, whatsappPrice: 0.0147,
    // Removing the URL keeps the secret, so setting one again does not change what receivers verify with.
    webhookSecret: res.json().webhookSecret,
    updatedAt: '2030-01-01T00:01:00.000Z',
  }));
  assert.match(res.json().webhookSecret, /^whsec_/);
});

test('an inactive account\'s sends are refused', async (t) => {
  const { service } = await serviceAt(t);
  const account = await createAccount(service, { messagesLeft: 10 });
  await admin(service, 'PATCH', `/admin/v1/accounts/${account.id}`, { active: false });
  const res = await post(service, '/v1/sms/send', account.apiKey, SMS);
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'current service is not active' });
});

test('updating an unknown account answers 404', async (t) => {
  const { service } = await serviceAt(t);
  const res = await admin(service, 'PATCH', '/admin/v1/accounts/nope', { name: 'x' });
  assert.equal(res.statusCode, 404);
  assert.deepStrictEqual(res.json(), { message: 'Not found' });
});

test('top-ups and absolute sets of messages and balance are written to the ledger', async (t) => {
  const { service, clock } = await serviceAt(t);
  const account = await createAccount(service, { messagesLeft: 100, balance: 10 });
  clock.now += 1000;
  const topUp = await admin(service, 'PATCH', `/admin/v1/accounts/${account.id}`, { addMessages: 50, addBalance: '2.5' });
  assert.deepStrictEqual([topUp.statusCode, topUp.json().messagesLeft, topUp.json().balance], [200, 150, 12.5]);
  clock.now += 1000;
  const set = await admin(service, 'PATCH', `/admin/v1/accounts/${account.id}`, { messagesLeft: 20, balance: 0.25 });
  assert.deepStrictEqual([set.statusCode, set.json().messagesLeft, set.json().balance], [200, 20, 0.25]);
  clock.now += 1000;
  await admin(service, 'PATCH', `/admin/v1/accounts/${account.id}`, { addMessages: -5 });

  const res = await admin(service, 'GET', `/admin/v1/accounts/${account.id}/ledger`);
  assert.equal(res.statusCode, 200);
  const { entries } = res.json();
  for (const entry of entries) assert.match(entry.id, UUID);
  assert.deepStrictEqual(entries.map(({ id: _id, ...rest }: { id: string }) => rest), [
    { at: '2030-01-01T00:00:00.000Z', messagesDelta: 100, balanceDelta: 10, reason: 'account.open', sendId: null, note: null },
    { at: '2030-01-01T00:00:01.000Z', messagesDelta: 50, balanceDelta: 2.5, reason: 'admin.top-up', sendId: null, note: null },
    { at: '2030-01-01T00:00:02.000Z', messagesDelta: -130, balanceDelta: -12.25, reason: 'admin.set', sendId: null, note: null },
    { at: '2030-01-01T00:00:03.000Z', messagesDelta: -5, balanceDelta: 0, reason: 'admin.top-up', sendId: null, note: null },
  ]);
});

test('setting an amount to the value it already has writes no ledger row', async (t) => {
  const { service } = await serviceAt(t);
  const account = await createAccount(service, { messagesLeft: 7 });
  await admin(service, 'PATCH', `/admin/v1/accounts/${account.id}`, { messagesLeft: 7 });
  const res = await admin(service, 'GET', `/admin/v1/accounts/${account.id}/ledger`);
  assert.deepStrictEqual(res.json().entries.map((e: { reason: string }) => e.reason), ['account.open']);
});

test('a top-up that would take the messages below zero is refused and changes nothing', async (t) => {
  const { service } = await serviceAt(t);
  const account = await createAccount(service, { messagesLeft: 5 });
  const res = await admin(service, 'PATCH', `/admin/v1/accounts/${account.id}`, { name: 'renamed', addMessages: -6 });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: INVALID, detail: 'addMessages: the account would go below zero' });
  const after = (await admin(service, 'GET', `/admin/v1/accounts/${account.id}`)).json();
  assert.deepStrictEqual([after.name, after.messagesLeft], ['acme', 5]);
  const ledger = (await admin(service, 'GET', `/admin/v1/accounts/${account.id}/ledger`)).json();
  assert.equal(ledger.entries.length, 1);
});

test('a top-up that would take the balance below zero is refused', async (t) => {
  const { service } = await serviceAt(t);
  const account = await createAccount(service, { messagesLeft: 5, balance: 1 });
  const res = await admin(service, 'PATCH', `/admin/v1/accounts/${account.id}`, { addMessages: 1, addBalance: -1.0001 });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: INVALID, detail: 'addBalance: the account would go below zero' });
});

test('the ledger of an unknown account answers 404', async (t) => {
  const { service } = await serviceAt(t);
  const res = await admin(service, 'GET', '/admin/v1/accounts/nope/ledger');
  assert.equal(res.statusCode, 404);
  assert.deepStrictEqual(res.json(), { message: 'Not found' });
});

// ---- API keys ----

test('a key issued with scopes answers 201 with the key, once', async (t) => {
  const { service } = await serviceAt(t);
  const account = await createAccount(service);
  const res = await admin(service, 'POST', `/admin/v1/accounts/${account.id}/api-keys`, { scopes: ['sms', 'email', 'sms'] });
  assert.equal(res.statusCode, 201);
  const body = res.json();
  assert.match(body.id, UUID);
  assert.match(body.apiKey, JWT);
  assert.deepStrictEqual(body, { id: body.id, apiKey: body.apiKey, scopes: ['email', 'sms'], expiresAt: null, mode: 'live' });
});

test('a key without the sms scope is not authorized to send SMS', async (t) => {
  const { service } = await serviceAt(t);
  const account = await createAccount(service, { messagesLeft: 10 });
  const key = (await admin(service, 'POST', `/admin/v1/accounts/${account.id}/api-keys`, { scopes: ['email'] })).json();
  const res = await post(service, '/v1/sms/send', key.apiKey, SMS);
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'API key not authorized.' });
});

test('a key for an unknown account answers 404', async (t) => {
  const { service } = await serviceAt(t);
  const res = await admin(service, 'POST', '/admin/v1/accounts/nope/api-keys', {});
  assert.equal(res.statusCode, 404);
  assert.deepStrictEqual(res.json(), { message: 'Not found' });
});

test('a revoked key gets 403 Invalid API Key', async (t) => {
  const { service } = await serviceAt(t);
  const account = await createAccount(service, { messagesLeft: 10 });
  assert.equal((await post(service, '/v1/sms/send', account.apiKey, SMS)).statusCode, 200);
  const res = await admin(service, 'DELETE', `/admin/v1/accounts/${account.id}/api-keys/${account.keyId}`);
  assert.equal(res.statusCode, 204);
  assert.equal(res.body, '');
  const send = await post(service, '/v1/sms/send', account.apiKey, SMS);
  assert.equal(send.statusCode, 403);
  assert.deepStrictEqual(send.json(), { error: 'Invalid API Key ' });
});

test('revoking a key a second time answers 404', async (t) => {
  const { service } = await serviceAt(t);
  const account = await createAccount(service);
  await admin(service, 'DELETE', `/admin/v1/accounts/${account.id}/api-keys/${account.keyId}`);
  const res = await admin(service, 'DELETE', `/admin/v1/accounts/${account.id}/api-keys/${account.keyId}`);
  assert.equal(res.statusCode, 404);
  assert.deepStrictEqual(res.json(), { message: 'Not found' });
});

test('an account name another account holds, in any case, is refused with 409 naming the holder', async (t) => {
  const { service } = await serviceAt(t);
  const acme = await createAccount(service);
  const res = await admin(service, 'POST', '/admin/v1/accounts', { name: 'ACME' });
  assert.equal(res.statusCode, 409);
  assert.deepStrictEqual(res.json(), {
    message: 'Already exists', detail: `name: is taken by account ${acme.id} (names are compared without regard to case)`,
  });
});

test('renaming an account to a name another account holds is refused with 409', async (t) => {
  const { service } = await serviceAt(t);
  const acme = await createAccount(service);
  const other = await createAccount(service, { name: 'other' });
  const res = await admin(service, 'PATCH', `/admin/v1/accounts/${other.id}`, { name: 'Acme' });
  assert.equal(res.statusCode, 409);
  assert.equal(res.json().detail, `name: is taken by account ${acme.id} (names are compared without regard to case)`);
});

test('a key cannot be revoked through another account', async (t) => {
  const { service } = await serviceAt(t);
  const owner = await createAccount(service, { messagesLeft: 10 });
  const other = await createAccount(service, { name: 'other' });
  const res = await admin(service, 'DELETE', `/admin/v1/accounts/${other.id}/api-keys/${owner.keyId}`);
  assert.equal(res.statusCode, 404);
  assert.equal((await post(service, '/v1/sms/send', owner.apiKey, SMS)).statusCode, 200);
});

test('a key that has expired gets 403 Invalid API Key', async (t) => {
  const { service, clock } = await serviceAt(t);
  const account = await createAccount(service, { messagesLeft: 10 });
  const created = await admin(service, 'POST', `/admin/v1/accounts/${account.id}/api-keys`, { expiresAt: '2030-01-01T00:01:00Z' });
  assert.equal(created.statusCode, 201);
  assert.equal(created.json().expiresAt, '2030-01-01T00:01:00.000Z');
  const key = created.json().apiKey;
  assert.equal((await post(service, '/v1/sms/send', key, SMS)).statusCode, 200);
  clock.now += 61_000;
  const res = await post(service, '/v1/sms/send', key, SMS);
  assert.equal(res.statusCode, 403);
  assert.deepStrictEqual(res.json(), { error: 'Invalid API Key ' });
});

// ---- sender domains ----

test('adding a sender domain answers 201 with the domain lower-cased', async (t) => {
  const { service } = await serviceAt(t);
  const account = await createAccount(service);
  const res = await admin(service, 'POST', `/admin/v1/accounts/${account.id}/domains`, { domain: 'News.Example.ORG' });
  assert.equal(res.statusCode, 201);
  const body = res.json();
  const token = String(body.records?.[0]?.value).replace(/^herald-verification=/, '');
  const publicKey = String(body.records?.[1]?.value).replace(/^v=DKIM1; k=rsa; p=/, '');
  assert.match(token, /^[A-Za-z0-9_-]{43}$/);
  assert.match(publicKey, /^MIIBIjAN[A-Za-z0-9+/]{384}$/);
  assert.deepStrictEqual(body, {
    domain: 'news.example.org', verified: false, verifiedAt: null,
    records: [
      { type: 'TXT', name: '_herald.news.example.org', value: `herald-verification=${token}`, purpose: 'verification' },
      { type: 'TXT', name: 'herald203001._domainkey.news.example.org', value: `v=DKIM1; k=rsa; p=${publicKey}`, purpose: 'dkim' },
      { type: 'TXT', name: 'news.example.org', value: 'v=spf1 include:localhost ~all', purpose: 'spf' },
      { type: 'TXT', name: '_dmarc.news.example.org', value: 'v=DMARC1; p=none; rua=mailto:dmarc-reports@news.example.org', purpose: 'dmarc' },
      { type: 'MX', name: 'localhost', value: '10 localhost', purpose: 'bounces' },
    ],
    notes: [],
  });
});

test('adding a domain the account already has answers 409', async (t) => {
  const { service } = await serviceAt(t);
  const account = await createAccount(service);
  await admin(service, 'POST', `/admin/v1/accounts/${account.id}/domains`, { domain: 'example.com' });
  const res = await admin(service, 'POST', `/admin/v1/accounts/${account.id}/domains`, { domain: 'EXAMPLE.com', verified: true });
  assert.equal(res.statusCode, 409);
  assert.deepStrictEqual(res.json(), { message: 'Already exists' });
});

test('email from a domain added as verified is accepted', async (t) => {
  const { service } = await serviceAt(t);
  const account = await createAccount(service, { messagesLeft: 10 });
  await admin(service, 'POST', `/admin/v1/accounts/${account.id}/domains`, { domain: 'example.com', verified: true });
  const res = await post(service, '/v1/email', account.apiKey, {
    to: [{ email: 'ana@example.org' }], from: { email: 'news@example.com', name: 'News' }, replyTo: { email: 'help@example.com', name: 'Help' },
    subject: 'Hello', body: 'Hi there',
  });
  assert.equal(res.statusCode, 200);
});

test('a domain for an unknown account answers 404', async (t) => {
  const { service } = await serviceAt(t);
  const res = await admin(service, 'POST', '/admin/v1/accounts/nope/domains', { domain: 'example.com' });
  assert.equal(res.statusCode, 404);
  assert.deepStrictEqual(res.json(), { message: 'Not found' });
});

// ---- WhatsApp templates ----

test('recording a WhatsApp template answers 201 with its id and parameter count', async (t) => {
  const { service } = await serviceAt(t);
  const account = await createAccount(service);
  const res = await admin(service, 'POST', `/admin/v1/accounts/${account.id}/whatsapp-templates`, { name: 'otp_code', body: 'Hi {{1}}, your code is {{2}}' });
  assert.equal(res.statusCode, 201);
  const body = res.json();
  assert.match(body.templateId, UUID);
  assert.deepStrictEqual(body, {
    templateId: body.templateId, name: 'otp_code', language: 'en_US', body: 'Hi {{1}}, your code is {{2}}', status: 'APPROVED', paramCount: 2,
    category: 'UTILITY', header: null, footer: null, submission: 'local', submissionError: null,
  });
});

test('a recorded template can be sent', async (t) => {
  const { service } = await serviceAt(t);
  const account = await createAccount(service, { balance: 1, whatsappPrice: 0.05 });
  const template = (await admin(service, 'POST', `/admin/v1/accounts/${account.id}/whatsapp-templates`, { name: 'otp', language: 'es', body: 'Código {{1}}' })).json();
  const res = await post(service, '/v1/whatsapp/sendTemplateMessage', account.apiKey, { destination: '5215512345678', templateId: template.templateId, params: ['1234'] });
  assert.equal(res.statusCode, 200);
  assert.equal(res.json().current_balance, 0.95);
});

test('a template body with a broken placeholder answers 400 Incorrect variable syntax', async (t) => {
  const { service } = await serviceAt(t);
  const account = await createAccount(service);
  const res = await admin(service, 'POST', `/admin/v1/accounts/${account.id}/whatsapp-templates`, { name: 'otp', body: 'Hi {{name}}' });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Incorrect variable syntax' });
});

test('a template for an unknown account answers 404', async (t) => {
  const { service } = await serviceAt(t);
  const res = await admin(service, 'POST', '/admin/v1/accounts/nope/whatsapp-templates', { name: 'otp', body: 'Hi {{1}}' });
  assert.equal(res.statusCode, 404);
  assert.deepStrictEqual(res.json(), { message: 'Not found' });
});

// ---- WhatsApp Cloud API credentials: the token is write-only ----

const TOKEN = 'EAAGm0PX4ZCpsBA-secret-token-0123456789';

test('an account created with Cloud API credentials shows the phone number id and "set", never the token', async (t) => {
  const { service } = await serviceAt(t);
  const res = await admin(service, 'POST', '/admin/v1/accounts', { name: 'acme', whatsappPhoneNumberId: '106540352242922', whatsappAccessToken: TOKEN });
  assert.equal(res.statusCode, 201);
  assert.deepStrictEqual(res.json().account, accountAt(res.json().account.id, { whatsappPhoneNumberId: '106540352242922', whatsappAccessToken: 'set' }));
  assert.equal(res.body.includes(TOKEN), false);
});

test('reading an account with a token shows "set", never the token', async (t) => {
  const { service } = await serviceAt(t);
  const account = await createAccount(service, { whatsappPhoneNumberId: '106540352242922', whatsappAccessToken: TOKEN });
  const res = await admin(service, 'GET', `/admin/v1/accounts/${account.id}`);
  assert.equal(res.json().whatsappAccessToken, 'set');
  assert.equal(res.body.includes(TOKEN), false);
});

test('replacing the token answers with "set", never the new token', async (t) => {
  const { service } = await serviceAt(t);
  const account = await createAccount(service, { whatsappAccessToken: TOKEN });
  const res = await admin(service, 'PATCH', `/admin/v1/accounts/${account.id}`, { whatsappAccessToken: `${TOKEN}-rotated` });
  assert.equal(res.statusCode, 200);
  assert.equal(res.json().whatsappAccessToken, 'set');
  assert.equal(res.body.includes(TOKEN), false);
});

test('the Cloud API credentials are removed with null', async (t) => {
  const { service } = await serviceAt(t);
  const account = await createAccount(service, { whatsappPhoneNumberId: '106540352242922', whatsappAccessToken: TOKEN });
  const res = await admin(service, 'PATCH', `/admin/v1/accounts/${account.id}`, { whatsappPhoneNumberId: null, whatsappAccessToken: null });
  assert.deepStrictEqual([res.json().whatsappPhoneNumberId, res.json().whatsappAccessToken], [null, null]);
});

test('a malformed token is refused without repeating it', async (t) => {
  const { service } = await serviceAt(t);
  const account = await createAccount(service);
  const res = await admin(service, 'PATCH', `/admin/v1/accounts/${account.id}`, { whatsappAccessToken: `${TOKEN} with a space` });
  assert.equal(res.statusCode, 400);
  assert.equal(res.body.includes(TOKEN), false);
});

// ---- every invalid field, with its exact detail ----

const MONEY = 'must be an amount of at least 0 with at most 4 decimals, e.g. 10.50';
const NAME = 'must be 1 to 200 characters, without control characters';
const PHONE_NUMBER_ID_PROBLEM = 'must be null or the Cloud API phone number id, a string of digits';
const ACCESS_TOKEN_PROBLEM = 'must be null or a Cloud API access token: 1 to 4096 printable ASCII characters without spaces';

const INVALID_ACCOUNTS: readonly (readonly [string, unknown, string])[] = [
  ['a body that is not an object', ['acme'], 'body: must be a JSON object'],
  ['no name', {}, 'name: is required'],
  ['an empty name', { name: ' ' }, `name: ${NAME}`],
  ['a name of 201 characters', { name: 'a'.repeat(201) }, `name: ${NAME}`],
  ['a name that is a number', { name: 42 }, `name: ${NAME}`],
  ['a name with a control character', { name: 'ac\nme' }, `name: ${NAME}`],
  ['an unknown field', { name: 'acme', messages_left: 5 }, 'messages_left: unknown field'],
  ['a negative messagesLeft', { name: 'acme', messagesLeft: -1 }, 'messagesLeft: must be a whole number of at least 0'],
  ['a fractional messagesLeft', { name: 'acme', messagesLeft: 1.5 }, 'messagesLeft: must be a whole number of at least 0'],
  ['messagesLeft as text', { name: 'acme', messagesLeft: '10' }, 'messagesLeft: must be a whole number of at least 0'],
  ['a negative balance', { name: 'acme', balance: -1 }, `balance: ${MONEY}`],
  ['a balance with 5 decimals', { name: 'acme', balance: '1.00001' }, `balance: ${MONEY}`],
  ['a balance that is not a number', { name: 'acme', balance: 'ten' }, `balance: ${MONEY}`],
  ['a negative whatsappPrice', { name: 'acme', whatsappPrice: '-0.05' }, `whatsappPrice: ${MONEY}`],
  ['active as text', { name: 'acme', active: 'yes' }, 'active: must be true or false'],
  ['a rate limit of 0', { name: 'acme', rateLimitPerSecond: 0 }, 'rateLimitPerSecond: must be a whole number from 1 to 100000'],
  ['a rate limit above 100000', { name: 'acme', rateLimitPerSecond: 100001 }, 'rateLimitPerSecond: must be a whole number from 1 to 100000'],
  ['an allow-list that is not an array', { name: 'acme', ipAllowList: '10.0.0.1' }, 'ipAllowList: must be an array of strings'],
  ['an allow-list entry that is not an address', { name: 'acme', ipAllowList: ['300.1.1.1'] }, 'ipAllowList: "300.1.1.1" is not an IP address or CIDR'],
  ['an allow-list scope that is neither keys nor all', { name: 'acme', allowListAppliesTo: 'sessions' }, 'allowListAppliesTo: must be "keys" or "all"'],
  ['services that are not an object', { name: 'acme', services: true }, 'services: must be an object with email, sms and whatsapp set to true or false'],
  ['a service flag as text', { name: 'acme', services: { sms: 'no' } }, 'services.sms: must be true or false'],
  ['an unknown service', { name: 'acme', services: { fax: true } }, 'services.fax: unknown field'],
  ['a webhook URL that is not http(s)', { name: 'acme', webhookUrl: 'ftp://example.com/x' }, 'webhookUrl: must be null or an http(s) URL'],
  ['a webhook URL that is not a URL', { name: 'acme', webhookUrl: 'hooks.example.com' }, 'webhookUrl: must be null or an http(s) URL'],
  ['a WhatsApp phone number id with letters', { name: 'acme', whatsappPhoneNumberId: '10654a' }, `whatsappPhoneNumberId: ${PHONE_NUMBER_ID_PROBLEM}`],
  ['a WhatsApp phone number id as a number', { name: 'acme', whatsappPhoneNumberId: 106540352242922 }, `whatsappPhoneNumberId: ${PHONE_NUMBER_ID_PROBLEM}`],
  ['a WhatsApp access token with a space', { name: 'acme', whatsappAccessToken: 'EAAG secret' }, `whatsappAccessToken: ${ACCESS_TOKEN_PROBLEM}`],
  ['an empty WhatsApp access token', { name: 'acme', whatsappAccessToken: '' }, `whatsappAccessToken: ${ACCESS_TOKEN_PROBLEM}`],
];

for (const [what, body, detail] of INVALID_ACCOUNTS) {
  test(`creating an account with ${what} answers 400 naming the field`, async (t) => {
    const { service } = await serviceAt(t);
    const res = await admin(service, 'POST', '/admin/v1/accounts', body);
    assert.equal(res.statusCode, 400);
    assert.deepStrictEqual(res.json(), { message: INVALID, detail });
  });
}

const INVALID_UPDATES: readonly (readonly [string, unknown, string])[] = [
  ['a fractional addMessages', { addMessages: 1.5 }, 'addMessages: must be a whole number (negative to remove messages)'],
  ['an addBalance with 5 decimals', { addBalance: '-1.00001' }, 'addBalance: must be an amount with at most 4 decimals (negative to remove money)'],
  ['both messagesLeft and addMessages', { messagesLeft: 5, addMessages: 5 }, 'addMessages: cannot be combined with messagesLeft'],
  ['both balance and addBalance', { balance: 5, addBalance: 5 }, 'addBalance: cannot be combined with balance'],
  ['an empty name', { name: '' }, `name: ${NAME}`],
  ['an unknown field', { add_messages: 5 }, 'add_messages: unknown field'],
];

for (const [what, body, detail] of INVALID_UPDATES) {
  test(`updating an account with ${what} answers 400 naming the field`, async (t) => {
    const { service } = await serviceAt(t);
    const account = await createAccount(service, { messagesLeft: 5 });
    const res = await admin(service, 'PATCH', `/admin/v1/accounts/${account.id}`, body);
    assert.equal(res.statusCode, 400);
    assert.deepStrictEqual(res.json(), { message: INVALID, detail });
  });
}

const SCOPES = 'scopes: must be a non-empty array of "email", "sms", "whatsapp", "webhooks", "account"';
const INVALID_KEYS: readonly (readonly [string, unknown, string])[] = [
  ['no scopes', { scopes: [] }, SCOPES],
  ['an unknown scope', { scopes: ['sms', 'fax'] }, SCOPES],
  ['scopes as text', { scopes: 'sms' }, SCOPES],
  ['an expiry in the past', { expiresAt: '2029-12-31T23:59:59Z' }, 'expiresAt: must be in the future'],
  ['an expiry without an offset', { expiresAt: '2031-01-01T00:00:00' }, 'expiresAt: must be an ISO-8601 time with an offset, e.g. 2030-01-31T00:00:00Z'],
  ['an expiry that is not a time', { expiresAt: 'tomorrow' }, 'expiresAt: must be an ISO-8601 time with an offset, e.g. 2030-01-31T00:00:00Z'],
];

for (const [what, body, detail] of INVALID_KEYS) {
  test(`issuing a key with ${what} answers 400 naming the field`, async (t) => {
    const { service } = await serviceAt(t);
    const account = await createAccount(service);
    const res = await admin(service, 'POST', `/admin/v1/accounts/${account.id}/api-keys`, body);
    assert.equal(res.statusCode, 400);
    assert.deepStrictEqual(res.json(), { message: INVALID, detail });
  });
}

const DOMAIN = 'domain: must be a host name with a dot, e.g. example.com';
const INVALID_DOMAINS: readonly (readonly [string, unknown, string])[] = [
  ['no domain', {}, 'domain: is required'],
  ['a name without a dot', { domain: 'localhost' }, DOMAIN],
  ['an address instead of a domain', { domain: 'news@example.com' }, DOMAIN],
  ['an IP address', { domain: '192.0.2.1' }, DOMAIN],
  ['verified as text', { domain: 'example.com', verified: 'yes' }, 'verified: must be true or false'],
];

for (const [what, body, detail] of INVALID_DOMAINS) {
  test(`adding a sender domain with ${what} answers 400 naming the field`, async (t) => {
    const { service } = await serviceAt(t);
    const account = await createAccount(service);
    const res = await admin(service, 'POST', `/admin/v1/accounts/${account.id}/domains`, body);
    assert.equal(res.statusCode, 400);
    assert.deepStrictEqual(res.json(), { message: INVALID, detail });
  });
}

const INVALID_TEMPLATES: readonly (readonly [string, unknown, string])[] = [
  ['no name', { body: 'Hi {{1}}' }, 'name: is required'],
  ['no body', { name: 'otp' }, 'body: is required'],
  ['a language that is not a code', { name: 'otp', body: 'Hi', language: 'English' }, 'language: must be a language code such as en or en_US'],
  ['an unknown status', { name: 'otp', body: 'Hi', status: 'approved' }, 'status: must be one of APPROVED, PENDING, REJECTED'],
];

for (const [what, body, detail] of INVALID_TEMPLATES) {
  test(`recording a WhatsApp template with ${what} answers 400 naming the field`, async (t) => {
    const { service } = await serviceAt(t);
    const account = await createAccount(service);
    const res = await admin(service, 'POST', `/admin/v1/accounts/${account.id}/whatsapp-templates`, body);
    assert.equal(res.statusCode, 400);
    assert.deepStrictEqual(res.json(), { message: INVALID, detail });
  });
}

// ---- documentation ----

test('the operator routes are in the OpenAPI document under the admin tag, with the admin token', async (t) => {
  const { service } = await serviceAt(t);
  const doc = (await service.http.inject({ method: 'GET', url: '/openapi.json' })).json();
  const operations = [
    ['/admin/v1/accounts', 'post'], ['/admin/v1/accounts/{id}', 'get'], ['/admin/v1/accounts/{id}', 'patch'],
    ['/admin/v1/accounts/{id}/ledger', 'get'], ['/admin/v1/accounts/{id}/api-keys', 'post'],
    ['/admin/v1/accounts/{id}/api-keys/{keyId}', 'delete'], ['/admin/v1/accounts/{id}/domains', 'post'],
    ['/admin/v1/accounts/{id}/domains/{domain}', 'get'], ['/admin/v1/accounts/{id}/domains/{domain}/verify', 'post'],
    ['/admin/v1/accounts/{id}/whatsapp-templates', 'post'],
  ] as const;
  for (const [path, method] of operations) {
    const operation = doc.paths[path]?.[method];
    assert.ok(operation, `${method} ${path} is documented`);
    assert.deepStrictEqual([operation.tags, operation.security], [['admin'], [{ adminToken: [] }]]);
  }
});

test('an operator POST without a body takes every default', async (t) => {
  const { service } = await serviceAt(t);
  const account = await createAccount(service);
  const res = await service.http.inject({ method: 'POST', url: `/admin/v1/accounts/${account.id}/api-keys`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.deepStrictEqual([res.statusCode, res.json().scopes], [201, ['email', 'sms', 'whatsapp', 'webhooks', 'account']]);
});
