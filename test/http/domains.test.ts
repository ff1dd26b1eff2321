// Sender domains: adding one (DKIM key pair, selector, verification token), the DNS
// records to publish, and verification against a real DNS server on loopback.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import dnsPacket from 'dns-packet';
import type { LightMyRequestResponse } from 'fastify';
import type { Service } from '../../src/service.ts';
import { startDnsServer, type DnsPeer } from '../peers/dns-server.ts';
import { ADMIN_TOKEN, emailBody, get, keyWithScopes, openAccount, post, startService, type TestAccount } from '../support/service.ts';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const T1 = Date.parse('2030-01-02T12:00:00.000Z');
const HOST = 'herald.example.net';
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
// RSA 2048 SubjectPublicKeyInfo, DER (294 octets) in base64.
const PUBLIC_KEY = /^MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA[A-Za-z0-9+/]{348}$/;
const NOT_FOUND = { message: 'Not found' };

interface Harness {
  readonly service: Service;
  readonly dns: DnsPeer;
  readonly clock: { now: number };
  readonly account: TestAccount;
}

/** A service at T0 whose resolver asks the loopback DNS peer, and an account with an all-scope key. */
async function start(t: TestContext, dnsServer?: string): Promise<Harness> {
  const dns = await startDnsServer();
  t.after(() => dns.close());
  const clock = { now: T0 };
  const service = await startService(t, {
    clock: () => clock.now,
    env: { HERALD_DNS_SERVERS: dnsServer ?? dns.server, HERALD_PUBLIC_URL: `https://${HOST}` },
  });
  return { service, dns, clock, account: await openAccount(service) };
}

function admin(service: Service, method: 'GET' | 'POST', url: string, body?: unknown): Promise<LightMyRequestResponse> {
  return service.http.inject({
    method, url,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

interface Published { readonly token: string; readonly key: string }

/** The token and public key a domain view carries, checked for their form. */
function publishedIn(view: { records: { purpose: string; value: string }[] }): Published {
  const token = view.records.find((r) => r.purpose === 'verification')?.value.replace(/^herald-verification=/, '') ?? '';
  const key = view.records.find((r) => r.purpose === 'dkim')?.value.replace(/^v=DKIM1; k=rsa; p=/, '') ?? '';
  assert.match(token, TOKEN);
  assert.match(key, PUBLIC_KEY);
  return { token, key };
}

function domainView(domain: string, { token, key }: Published, state: { verified: boolean; verifiedAt: string | null } = { verified: false, verifiedAt: null }) {
  return {
    domain, ...state,
    records: [
      { type: 'TXT', name: `_herald.${domain}`, value: `herald-verification=${token}`, purpose: 'verification' },
      { type: 'TXT', name: `herald203001._domainkey.${domain}`, value: `v=DKIM1; k=rsa; p=${key}`, purpose: 'dkim' },
      { type: 'TXT', name: domain, value: `v=spf1 include:${HOST} ~all`, purpose: 'spf' },
      { type: 'MX', name: HOST, value: `10 ${HOST}`, purpose: 'bounces' },
    ],
  };
}

/** Adds the domain through the API and returns what it says to publish. */
async function addDomain(h: Harness, domain: string): Promise<Published> {
  const res = await post(h.service, '/v1/domains', h.account.apiKey, { domain });
  assert.equal(res.statusCode, 201, res.body);
  return publishedIn(res.json());
}

/** Publishes both records the way a DNS host would (the DKIM value in 255-octet strings). */
function publish(dns: DnsPeer, domain: string, { token, key }: Published): void {
  dns.set(`_herald.${domain}`, [{ type: 'TXT', name: `_herald.${domain}`, data: `herald-verification=${token}` }]);
  const dkim = `v=DKIM1; k=rsa; p=${key}`;
  dns.set(`herald203001._domainkey.${domain}`, [{ type: 'TXT', name: `herald203001._domainkey.${domain}`, data: [dkim.slice(0, 255), dkim.slice(255)] }]);
}

const verify = (h: Harness, domain: string, apiKey = h.account.apiKey) => post(h.service, `/v1/domains/${domain}/verify`, apiKey, {});

const checks = (domain: string, verification: Record<string, unknown>, dkim: Record<string, unknown>) => [
  { record: `_herald.${domain}`, ...verification },
  { record: `herald203001._domainkey.${domain}`, ...dkim },
];
const OK = { found: true, ok: true };

// ---- adding ----

test('adding a domain with an API key answers 201, unverified, with the four records to publish', async (t) => {
  const h = await start(t);
  const res = await post(h.service, '/v1/domains', h.account.apiKey, { domain: 'news.acme.org' });
  assert.equal(res.statusCode, 201);
  assert.deepStrictEqual(res.json(), domainView('news.acme.org', publishedIn(res.json())));
});

test('adding a domain through the operator API answers 201 with the same records', async (t) => {
  const h = await start(t);
  const res = await admin(h.service, 'POST', `/admin/v1/accounts/${h.account.id}/domains`, { domain: 'news.acme.org' });
  assert.equal(res.statusCode, 201);
  assert.deepStrictEqual(res.json(), domainView('news.acme.org', publishedIn(res.json())));
});

test('the operator can add a domain verified by hand, verified at that moment', async (t) => {
  const h = await start(t);
  const res = await admin(h.service, 'POST', `/admin/v1/accounts/${h.account.id}/domains`, { domain: 'news.acme.org', verified: true });
  assert.equal(res.statusCode, 201);
  assert.deepStrictEqual(res.json(), domainView('news.acme.org', publishedIn(res.json()), { verified: true, verifiedAt: '2030-01-01T00:00:00.000Z' }));
});

test('a domain is stored lower-cased', async (t) => {
  const h = await start(t);
  const res = await post(h.service, '/v1/domains', h.account.apiKey, { domain: 'News.ACME.org' });
  assert.equal(res.statusCode, 201);
  assert.equal(res.json().domain, 'news.acme.org');
});

test('every domain gets its own key pair and token', async (t) => {
  const h = await start(t);
  const first = await addDomain(h, 'one.acme.org');
  const second = await addDomain(h, 'two.acme.org');
  assert.notEqual(first.key, second.key);
  assert.notEqual(first.token, second.token);
});

test('adding a domain the account already has answers 409 Already exists', async (t) => {
  const h = await start(t);
  await addDomain(h, 'news.acme.org');
  const res = await post(h.service, '/v1/domains', h.account.apiKey, { domain: 'NEWS.acme.org' });
  assert.equal(res.statusCode, 409);
  assert.deepStrictEqual(res.json(), { message: 'Already exists' });
});

test('an account cannot mark its own domain verified', async (t) => {
  const h = await start(t);
  const res = await post(h.service, '/v1/domains', h.account.apiKey, { domain: 'news.acme.org', verified: true });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Invalid request, a field has the wrong type or value', detail: 'verified: unknown field' });
});

test('adding something that is not a host name answers 400 naming the field', async (t) => {
  const h = await start(t);
  const res = await post(h.service, '/v1/domains', h.account.apiKey, { domain: 'localhost' });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), {
    message: 'Invalid request, a field has the wrong type or value', detail: 'domain: must be a host name with a dot, e.g. example.com',
  });
});

test('a key without the email scope cannot manage domains', async (t) => {
  const h = await start(t);
  const smsKey = await keyWithScopes(h.service, h.account.id, ['sms']);
  const res = await post(h.service, '/v1/domains', smsKey, { domain: 'news.acme.org' });
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'API key not authorized.' });
});

// ---- reading ----

test('a domain reads back with the records it was added with, whatever the case of the name asked', async (t) => {
  const h = await start(t);
  const published = await addDomain(h, 'news.acme.org');
  const res = await get(h.service, '/v1/domains/News.Acme.ORG', h.account.apiKey);
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), domainView('news.acme.org', published));
});

test('the list shows every domain of the account by name, one stored before DKIM existed given keys on first sight', async (t) => {
  const h = await start(t);
  const published = await addDomain(h, 'news.acme.org');
  const res = await get(h.service, '/v1/domains', h.account.apiKey);
  assert.equal(res.statusCode, 200);
  const [legacy] = res.json().domains; // example.com, stored by the harness without keys
  assert.deepStrictEqual(res.json(), {
    domains: [
      domainView('example.com', publishedIn(legacy), { verified: true, verifiedAt: '2030-01-01T00:00:00.000Z' }),
      domainView('news.acme.org', published),
    ],
  });
});

test('a domain stored before DKIM existed keeps the keys it was given on first sight', async (t) => {
  const h = await start(t);
  const first = (await get(h.service, '/v1/domains/example.com', h.account.apiKey)).json();
  const second = (await get(h.service, '/v1/domains/example.com', h.account.apiKey)).json();
  assert.deepStrictEqual(second, first);
});

test('the operator reads an account\'s domain with its records', async (t) => {
  const h = await start(t);
  const published = await addDomain(h, 'news.acme.org');
  const res = await admin(h.service, 'GET', `/admin/v1/accounts/${h.account.id}/domains/news.acme.org`);
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), domainView('news.acme.org', published));
});

test('a domain the account does not have answers 404', async (t) => {
  const h = await start(t);
  const res = await get(h.service, '/v1/domains/nothing.acme.org', h.account.apiKey);
  assert.equal(res.statusCode, 404);
  assert.deepStrictEqual(res.json(), NOT_FOUND);
});

test('another account\'s domain answers 404 to reading', async (t) => {
  const h = await start(t);
  await addDomain(h, 'news.acme.org');
  const other = await openAccount(h.service, { name: 'other' });
  const res = await get(h.service, '/v1/domains/news.acme.org', other.apiKey);
  assert.equal(res.statusCode, 404);
  assert.deepStrictEqual(res.json(), NOT_FOUND);
});

test('another account\'s domain is not in the list', async (t) => {
  const h = await start(t);
  await addDomain(h, 'news.acme.org');
  const other = await openAccount(h.service, { name: 'other' });
  const res = await get(h.service, '/v1/domains', other.apiKey);
  assert.deepStrictEqual(res.json().domains.map((d: { domain: string }) => d.domain), ['example.com']);
});

test('the operator\'s read of a domain of an unknown account answers 404', async (t) => {
  const h = await start(t);
  const res = await admin(h.service, 'GET', '/admin/v1/accounts/nope/domains/example.com');
  assert.equal(res.statusCode, 404);
  assert.deepStrictEqual(res.json(), NOT_FOUND);
});

test('no answer about a domain ever contains a private key', async (t) => {
  const h = await start(t);
  const base = `/admin/v1/accounts/${h.account.id}/domains`;
  const published = await addDomain(h, 'news.acme.org');
  publish(h.dns, 'news.acme.org', published);
  const answers = [
    await admin(h.service, 'POST', base, { domain: 'ops.acme.org', verified: true }),
    await get(h.service, '/v1/domains', h.account.apiKey),
    await get(h.service, '/v1/domains/news.acme.org', h.account.apiKey),
    await verify(h, 'news.acme.org'),
    await admin(h.service, 'GET', `${base}/news.acme.org`),
    await admin(h.service, 'POST', `${base}/news.acme.org/verify`),
    await admin(h.service, 'GET', `/admin/v1/accounts/${h.account.id}`),
  ];
  const stored = await h.service.deps.db.selectFrom('sender_domains').select('dkim_private_key').execute();
  // A line from the middle of each stored PEM: no answer may carry any part of a key.
  const keyLines = stored.map((row) => row.dkim_private_key?.split('\n')[10] ?? '');
  assert.equal(keyLines.length, 3);
  for (const res of answers) {
    assert.equal(res.statusCode < 300, true, res.body);
    assert.doesNotMatch(res.body, /PRIVATE KEY/);
    for (const line of keyLines) assert.equal(res.body.includes(line), false);
  }
});

// ---- verification ----

test('a domain whose token and DKIM key are published verifies', async (t) => {
  const h = await start(t);
  const published = await addDomain(h, 'news.acme.org');
  publish(h.dns, 'news.acme.org', published);
  h.clock.now = T1;
  const res = await verify(h, 'news.acme.org');
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), {
    ...domainView('news.acme.org', published, { verified: true, verifiedAt: '2030-01-02T12:00:00.000Z' }),
    checks: checks('news.acme.org', OK, OK),
  });
});

test('a wrong token does not verify and says which record is wrong', async (t) => {
  const h = await start(t);
  const published = await addDomain(h, 'news.acme.org');
  publish(h.dns, 'news.acme.org', { ...published, token: 'not-the-token' });
  const res = await verify(h, 'news.acme.org');
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), {
    ...domainView('news.acme.org', published),
    checks: checks('news.acme.org', { found: true, ok: false }, OK),
  });
});

test('a missing DKIM record does not verify and says it is missing', async (t) => {
  const h = await start(t);
  const published = await addDomain(h, 'news.acme.org');
  h.dns.set('_herald.news.acme.org', [{ type: 'TXT', name: '_herald.news.acme.org', data: `herald-verification=${published.token}` }]);
  const res = await verify(h, 'news.acme.org');
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), {
    ...domainView('news.acme.org', published),
    checks: checks('news.acme.org', OK, { found: false, ok: false }),
  });
});

test('a DKIM record with another key does not verify', async (t) => {
  const h = await start(t);
  const published = await addDomain(h, 'news.acme.org');
  const other = await addDomain(h, 'other.acme.org');
  publish(h.dns, 'news.acme.org', { token: published.token, key: other.key });
  const res = await verify(h, 'news.acme.org');
  assert.deepStrictEqual(res.json().checks, checks('news.acme.org', OK, { found: true, ok: false }));
});

test('a DKIM record split over several strings is read as their concatenation', async (t) => {
  const h = await start(t);
  const published = await addDomain(h, 'news.acme.org');
  publish(h.dns, 'news.acme.org', published);
  const name = 'herald203001._domainkey.news.acme.org';
  const value = `v=DKIM1; k=rsa; p=${published.key}`;
  h.dns.set(name, [{ type: 'TXT', name, data: [value.slice(0, 100), value.slice(100, 200), value.slice(200)] }]);
  const res = await verify(h, 'news.acme.org');
  assert.deepStrictEqual([res.json().verified, res.json().checks], [true, checks('news.acme.org', OK, OK)]);
});

test('white space inside the published DKIM key does not matter', async (t) => {
  const h = await start(t);
  const published = await addDomain(h, 'news.acme.org');
  publish(h.dns, 'news.acme.org', published);
  const name = 'herald203001._domainkey.news.acme.org';
  const folded = published.key.match(/.{1,64}/g)?.join(' \t') ?? '';
  h.dns.set(name, [{ type: 'TXT', name, data: [`v=DKIM1;  k=rsa;\tp= ${folded.slice(0, 200)}`, folded.slice(200)] }]);
  const res = await verify(h, 'news.acme.org');
  assert.deepStrictEqual([res.json().verified, res.json().checks], [true, checks('news.acme.org', OK, OK)]);
});

test('the verification token may sit among other TXT records of its name', async (t) => {
  const h = await start(t);
  const published = await addDomain(h, 'news.acme.org');
  publish(h.dns, 'news.acme.org', published);
  h.dns.set('_herald.news.acme.org', [
    { type: 'TXT', name: '_herald.news.acme.org', data: 'herald-verification=an-old-token' },
    { type: 'TXT', name: '_herald.news.acme.org', data: `herald-verification=${published.token}` },
  ]);
  const res = await verify(h, 'news.acme.org');
  assert.equal(res.json().verified, true);
});

test('a failing DNS server answers 200, unverified, with the error of each look-up', async (t) => {
  const servfail = createSocket('udp4');
  servfail.on('message', (message, remote) => {
    const query = dnsPacket.decode(message);
    servfail.send(dnsPacket.encode({ id: query.id, type: 'response', flags: 2 /* SERVFAIL */, questions: query.questions ?? [] }), remote.port, remote.address);
  });
  servfail.bind(0, '127.0.0.1');
  await once(servfail, 'listening');
  t.after(() => servfail.close());

  const h = await start(t, `127.0.0.1:${servfail.address().port}`);
  const published = await addDomain(h, 'news.acme.org');
  const res = await verify(h, 'news.acme.org');
  assert.equal(res.statusCode, 200);
  const failed = { found: false, ok: false, error: 'DNS look-up failed (ESERVFAIL)' };
  assert.deepStrictEqual(res.json(), { ...domainView('news.acme.org', published), checks: checks('news.acme.org', failed, failed) });
});

test('a verified domain stays verified when a later check fails', async (t) => {
  const h = await start(t);
  const published = await addDomain(h, 'news.acme.org');
  publish(h.dns, 'news.acme.org', published);
  await verify(h, 'news.acme.org');
  h.dns.zone.clear();
  h.clock.now = T1;
  const res = await verify(h, 'news.acme.org');
  assert.deepStrictEqual(res.json(), {
    ...domainView('news.acme.org', published, { verified: true, verifiedAt: '2030-01-01T00:00:00.000Z' }),
    checks: checks('news.acme.org', { found: false, ok: false }, { found: false, ok: false }),
  });
});

test('the operator verifies an account\'s domain the same way', async (t) => {
  const h = await start(t);
  const published = await addDomain(h, 'news.acme.org');
  publish(h.dns, 'news.acme.org', published);
  const res = await admin(h.service, 'POST', `/admin/v1/accounts/${h.account.id}/domains/news.acme.org/verify`);
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), {
    ...domainView('news.acme.org', published, { verified: true, verifiedAt: '2030-01-01T00:00:00.000Z' }),
    checks: checks('news.acme.org', OK, OK),
  });
});

test('another account cannot verify my domain', async (t) => {
  const h = await start(t);
  const published = await addDomain(h, 'news.acme.org');
  publish(h.dns, 'news.acme.org', published);
  const other = await openAccount(h.service, { name: 'other' });
  const res = await verify(h, 'news.acme.org', other.apiKey);
  assert.equal(res.statusCode, 404);
  assert.deepStrictEqual(res.json(), NOT_FOUND);
  assert.equal((await get(h.service, '/v1/domains/news.acme.org', h.account.apiKey)).json().verified, false);
});

test('email from a domain is refused until DNS verifies it, then accepted', async (t) => {
  const h = await start(t);
  const published = await addDomain(h, 'news.acme.org');
  const from = { from: { email: 'hello@news.acme.org', name: 'Acme News' } };

  const refused = await post(h.service, '/v1/email', h.account.apiKey, emailBody(from));
  assert.equal(refused.statusCode, 401);
  assert.deepStrictEqual(refused.json(), { message: 'Domain not permitted. err 2' });

  publish(h.dns, 'news.acme.org', published);
  assert.equal((await verify(h, 'news.acme.org')).json().verified, true);

  const accepted = await post(h.service, '/v1/email', h.account.apiKey, emailBody(from));
  assert.equal(accepted.statusCode, 200, accepted.body);
  assert.equal(accepted.json().message, 'Email queued for delivery');
});
