// The spec's authentication table (403 and 500), on all three operations, and the
// IP allow-list: IPv4 and IPv6, exact and CIDR, behind a trusted and an untrusted proxy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { issueApiKey, revokeKey } from '../../src/app/api-keys.ts';
import type { Service } from '../../src/service.ts';
import { revokeApiKey } from '../../src/store/api-keys.ts';
import { addWhatsappTemplate, emailBody, issueKey, openAccount, post, postFrom, smsBody, startService } from '../support/service.ts';

interface Operation {
  readonly name: string;
  readonly url: string;
  /** A request the operation would accept from the account. */
  validBody(service: Service, accountId: string): Promise<Record<string, unknown>>;
}

const OPERATIONS: readonly Operation[] = [
  { name: 'email', url: '/v1/email', validBody: async () => emailBody() },
  { name: 'SMS', url: '/v1/sms/send', validBody: async () => smsBody() },
  {
    name: 'WhatsApp', url: '/v1/whatsapp/sendTemplateMessage',
    validBody: async (service, accountId) => {
      const template = await addWhatsappTemplate(service, accountId);
      return { destination: '5215512345678', templateId: template.id, params: ['Ana', '1234'] };
    },
  },
];

const NO_KEY = { error: 'No API Key sent' };
const INVALID_KEY = { error: 'Invalid API Key ' };
const IP_NOT_ALLOWED = { error: 'IP Not Allowed ' };
const INTERNAL = { error: 'An error has ocurred, please try again. Contact us if the issue persists' };

async function openRichAccount(service: Service, input: Parameters<typeof openAccount>[1] = {}) {
  return openAccount(service, { balance: 10_000, whatsappPrice: 500, ...input });
}

for (const op of OPERATIONS) {
  test(`${op.name}: a request without an Authorization header gets 403 No API Key sent`, async (t) => {
    const service = await startService(t);
    const account = await openRichAccount(service);
    const res = await post(service, op.url, undefined, await op.validBody(service, account.id));
    assert.equal(res.statusCode, 403);
    assert.deepStrictEqual(res.json(), NO_KEY);
  });

  test(`${op.name}: an empty Authorization header gets 403 No API Key sent`, async (t) => {
    const service = await startService(t);
    const account = await openRichAccount(service);
    const res = await postFrom(service, op.url, { headers: { authorization: '' }, body: await op.validBody(service, account.id) });
    assert.equal(res.statusCode, 403);
    assert.deepStrictEqual(res.json(), NO_KEY);
  });

  test(`${op.name}: "Bearer " with no token gets 403 No API Key sent`, async (t) => {
    const service = await startService(t);
    const account = await openRichAccount(service);
    const res = await postFrom(service, op.url, { headers: { authorization: 'Bearer ' }, body: await op.validBody(service, account.id) });
    assert.equal(res.statusCode, 403);
    assert.deepStrictEqual(res.json(), NO_KEY);
  });

  test(`${op.name}: a garbage token gets 403 Invalid API Key with its trailing space`, async (t) => {
    const service = await startService(t);
    const account = await openRichAccount(service);
    const res = await post(service, op.url, 'not-a-jwt', await op.validBody(service, account.id));
    assert.equal(res.statusCode, 403);
    assert.deepStrictEqual(res.json(), INVALID_KEY);
  });

  test(`${op.name}: a key under another scheme than Bearer gets 403 Invalid API Key`, async (t) => {
    const service = await startService(t);
    const account = await openRichAccount(service);
    const res = await postFrom(service, op.url, { headers: { authorization: `Basic ${account.apiKey}` }, body: await op.validBody(service, account.id) });
    assert.equal(res.statusCode, 403);
    assert.deepStrictEqual(res.json(), INVALID_KEY);
  });

  test(`${op.name}: a JWT signed with another secret gets 403 Invalid API Key`, async (t) => {
    const service = await startService(t);
    const account = await openRichAccount(service);
    const real = await issueKey(service, account.id);
    // Same claims as a real key (issuer, account, key id), wrong signature.
    const forged = await new SignJWT({ scope: 'email sms whatsapp' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer('herald').setSubject(account.id).setJti(real.id).setIssuedAt()
      .sign(randomBytes(32));
    const res = await post(service, op.url, forged, await op.validBody(service, account.id));
    assert.equal(res.statusCode, 403);
    assert.deepStrictEqual(res.json(), INVALID_KEY);
  });

  test(`${op.name}: a revoked key gets 403 Invalid API Key`, async (t) => {
    const service = await startService(t);
    const account = await openRichAccount(service);
    const key = await issueKey(service, account.id);
    const body = await op.validBody(service, account.id);
    assert.equal((await post(service, op.url, key.apiKey, body)).statusCode, 200);
    assert.equal(await revokeKey(service.deps, account.id, key.id), true);
    const res = await post(service, op.url, key.apiKey, body);
    assert.equal(res.statusCode, 403);
    assert.deepStrictEqual(res.json(), INVALID_KEY);
  });

  test(`${op.name}: a caller outside the account's IP allow-list gets 403 IP Not Allowed with its trailing space`, async (t) => {
    const service = await startService(t);
    const account = await openRichAccount(service, { ipAllowList: ['192.0.2.7'] });
    const res = await postFrom(service, op.url, { apiKey: account.apiKey, remoteAddress: '198.51.100.20', body: await op.validBody(service, account.id) });
    assert.equal(res.statusCode, 403);
    assert.deepStrictEqual(res.json(), IP_NOT_ALLOWED);
  });

  test(`${op.name}: a key store failure during authentication gets 500 An error has ocurred`, async (t) => {
    const service = await startService(t);
    const account = await openRichAccount(service);
    const body = await op.validBody(service, account.id);
    // A real failure: the store the key is looked up in is gone (with the request log that refers to it).
    await service.store.db.schema.dropTable('api_requests').execute();
    await service.store.db.schema.dropTable('api_keys').execute();
    const res = await post(service, op.url, account.apiKey, body);
    assert.equal(res.statusCode, 500);
    assert.deepStrictEqual(res.json(), INTERNAL);
  });
}

test('the authentication error is JSON', async (t) => {
  const service = await startService(t);
  const res = await post(service, '/v1/email', undefined, emailBody());
  assert.equal(res.statusCode, 403);
  assert.match(String(res.headers['content-type']), /^application\/json/);
});

test('a key of a deleted account gets 403 Invalid API Key', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  await service.store.db.deleteFrom('accounts').where('id', '=', account.id).execute();
  const res = await post(service, '/v1/email', account.apiKey, emailBody());
  assert.equal(res.statusCode, 403);
  assert.deepStrictEqual(res.json(), INVALID_KEY);
});

test('an expired key gets 403 Invalid API Key', async (t) => {
  let now = Date.parse('2025-01-01T00:00:00Z');
  const service = await startService(t, { clock: () => now });
  const account = await openAccount(service);
  const key = await issueApiKey(service.deps, service.deps.db, account.id, { expiresAt: now + 60_000 });
  assert.equal((await post(service, '/v1/email', key.apiKey, emailBody())).statusCode, 200);
  now += 120_000;
  const res = await post(service, '/v1/email', key.apiKey, emailBody());
  assert.equal(res.statusCode, 403);
  assert.deepStrictEqual(res.json(), INVALID_KEY);
});

test('a key verified a moment ago gets 403 Invalid API Key the moment it expires', async (t) => {
  let now = Date.parse('2025-01-01T00:00:00Z');
  const service = await startService(t, { clock: () => now });
  const account = await openAccount(service);
  const key = await issueApiKey(service.deps, service.deps.db, account.id, { expiresAt: now + 2000 });
  assert.equal((await post(service, '/v1/email', key.apiKey, emailBody())).statusCode, 200);
  now += 2000; // well inside the 5 s for which a verified key is remembered
  const res = await post(service, '/v1/email', key.apiKey, emailBody());
  assert.equal(res.statusCode, 403);
  assert.deepStrictEqual(res.json(), INVALID_KEY);
});

test('a key revoked by another process (straight in the store) works at most 5 s longer, then gets 403 Invalid API Key', async (t) => {
  let now = Date.parse('2025-01-01T00:00:00Z');
  const service = await startService(t, { clock: () => now });
  const account = await openAccount(service);
  const key = await issueKey(service, account.id);
  assert.equal((await post(service, '/v1/email', key.apiKey, emailBody())).statusCode, 200);
  // What the CLI or another API process does: this process's cache is not told.
  await revokeApiKey(service.deps.db, account.id, key.id, now);
  now += 4999;
  assert.equal((await post(service, '/v1/email', key.apiKey, emailBody())).statusCode, 200);
  now += 1;
  const res = await post(service, '/v1/email', key.apiKey, emailBody());
  assert.equal(res.statusCode, 403);
  assert.deepStrictEqual(res.json(), INVALID_KEY);
});

// ---- IP allow-list ----

interface AllowRow {
  readonly name: string;
  readonly list: readonly string[];
  readonly remoteAddress: string;
  readonly allowed: boolean;
}

const ALLOW_ROWS: readonly AllowRow[] = [
  { name: 'an IPv4 address on the list is allowed', list: ['192.0.2.7'], remoteAddress: '192.0.2.7', allowed: true },
  { name: 'an IPv4 address next to the listed one is refused', list: ['192.0.2.7'], remoteAddress: '192.0.2.8', allowed: false },
  { name: 'an IPv4 address inside a listed CIDR is allowed', list: ['10.0.0.0/8'], remoteAddress: '10.20.30.40', allowed: true },
  { name: 'an IPv4 address just outside a listed CIDR is refused', list: ['10.0.0.0/8'], remoteAddress: '11.0.0.1', allowed: false },
  { name: 'an IPv4 caller seen as IPv4-mapped IPv6 matches its IPv4 entry', list: ['192.0.2.7'], remoteAddress: '::ffff:192.0.2.7', allowed: true },
  { name: 'an IPv6 address on the list is allowed', list: ['2001:db8::5'], remoteAddress: '2001:db8::5', allowed: true },
  { name: 'an IPv6 address next to the listed one is refused', list: ['2001:db8::5'], remoteAddress: '2001:db8::6', allowed: false },
  { name: 'an IPv6 address inside a listed CIDR is allowed', list: ['2001:db8::/32'], remoteAddress: '2001:db8:ffff::1', allowed: true },
  { name: 'an IPv6 address outside a listed CIDR is refused', list: ['2001:db8::/32'], remoteAddress: '2001:db9::1', allowed: false },
  { name: 'an IPv6 caller is refused by an IPv4-only list', list: ['192.0.2.0/24'], remoteAddress: '2001:db8::5', allowed: false },
  { name: 'a caller matching the second entry of a mixed list is allowed', list: ['192.0.2.7', '2001:db8::/48'], remoteAddress: '2001:db8:0:1::9', allowed: true },
  { name: 'an empty list allows any caller', list: [], remoteAddress: '203.0.113.200', allowed: true },
];

for (const row of ALLOW_ROWS) {
  test(`IP allow-list: ${row.name}`, async (t) => {
    const service = await startService(t);
    const account = await openAccount(service, { ipAllowList: row.list });
    const res = await postFrom(service, '/v1/email', { apiKey: account.apiKey, remoteAddress: row.remoteAddress, body: emailBody() });
    if (row.allowed) {
      assert.equal(res.statusCode, 200);
    } else {
      assert.equal(res.statusCode, 403);
      assert.deepStrictEqual(res.json(), IP_NOT_ALLOWED);
    }
  });
}

test('IP allow-list: behind a trusted proxy the X-Forwarded-For client is the one checked, and is allowed', async (t) => {
  const service = await startService(t, { env: { HERALD_TRUST_PROXY: '127.0.0.1' } });
  const account = await openAccount(service, { ipAllowList: ['203.0.113.9'] });
  const res = await postFrom(service, '/v1/email', {
    apiKey: account.apiKey, remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '203.0.113.9' }, body: emailBody(),
  });
  assert.equal(res.statusCode, 200);
});

test('IP allow-list: behind a trusted proxy an X-Forwarded-For client off the list gets 403 IP Not Allowed', async (t) => {
  const service = await startService(t, { env: { HERALD_TRUST_PROXY: '127.0.0.1' } });
  const account = await openAccount(service, { ipAllowList: ['127.0.0.1'] });
  // The proxy itself is on the list, the client behind it is not.
  const res = await postFrom(service, '/v1/email', {
    apiKey: account.apiKey, remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '198.51.100.1' }, body: emailBody(),
  });
  assert.equal(res.statusCode, 403);
  assert.deepStrictEqual(res.json(), IP_NOT_ALLOWED);
});

test('IP allow-list: without a trusted proxy an X-Forwarded-For header is ignored', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { ipAllowList: ['203.0.113.9'] });
  const res = await postFrom(service, '/v1/email', {
    apiKey: account.apiKey, remoteAddress: '198.51.100.1', headers: { 'x-forwarded-for': '203.0.113.9' }, body: emailBody(),
  });
  assert.equal(res.statusCode, 403);
  assert.deepStrictEqual(res.json(), IP_NOT_ALLOWED);
});

test('IP allow-list: a peer that is not the trusted proxy cannot claim a client with X-Forwarded-For', async (t) => {
  const service = await startService(t, { env: { HERALD_TRUST_PROXY: '127.0.0.1' } });
  const account = await openAccount(service, { ipAllowList: ['203.0.113.9'] });
  const res = await postFrom(service, '/v1/email', {
    apiKey: account.apiKey, remoteAddress: '198.51.100.1', headers: { 'x-forwarded-for': '203.0.113.9' }, body: emailBody(),
  });
  assert.equal(res.statusCode, 403);
  assert.deepStrictEqual(res.json(), IP_NOT_ALLOWED);
});

test('IP allow-list: a trusted proxy given as a CIDR forwards the client address', async (t) => {
  const service = await startService(t, { env: { HERALD_TRUST_PROXY: '10.0.0.0/8' } });
  const account = await openAccount(service, { ipAllowList: ['203.0.113.9'] });
  const res = await postFrom(service, '/v1/email', {
    apiKey: account.apiKey, remoteAddress: '10.1.2.3', headers: { 'x-forwarded-for': '203.0.113.9' }, body: emailBody(),
  });
  assert.equal(res.statusCode, 200);
});

test('IP allow-list: a client spoofing an extra X-Forwarded-For hop before the trusted proxy is judged by the hop the proxy saw', async (t) => {
  const service = await startService(t, { env: { HERALD_TRUST_PROXY: '127.0.0.1' } });
  const account = await openAccount(service, { ipAllowList: ['203.0.113.9'] });
  // The client wrote "203.0.113.9" itself; the proxy appended the real peer 198.51.100.1.
  const res = await postFrom(service, '/v1/email', {
    apiKey: account.apiKey, remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '203.0.113.9, 198.51.100.1' }, body: emailBody(),
  });
  assert.equal(res.statusCode, 403);
  assert.deepStrictEqual(res.json(), IP_NOT_ALLOWED);
});

test('IP allow-list: a hop count of 1 trusts the nearest proxy and checks the client it saw', async (t) => {
  const service = await startService(t, { env: { HERALD_TRUST_PROXY: '1' } });
  const account = await openAccount(service, { ipAllowList: ['203.0.113.9'] });
  // The client spoofed "198.51.100.7"; the one proxy appended the real peer 203.0.113.9.
  const res = await postFrom(service, '/v1/email', {
    apiKey: account.apiKey, remoteAddress: '10.9.9.9', headers: { 'x-forwarded-for': '198.51.100.7, 203.0.113.9' }, body: emailBody(),
  });
  assert.equal(res.statusCode, 200);
});
