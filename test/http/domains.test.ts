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
import { campaignBody } from '../support/campaigns.ts';
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
async function start(t: TestContext, dnsServer?: string, env: Record<string, string> = {}): Promise<Harness> {
  const dns = await startDnsServer();
  t.after(() => dns.close());
  const clock = { now: T0 };
  const service = await startService(t, {
    clock: () => clock.now,
    env: { HERALD_DNS_SERVERS: dnsServer ?? dns.server, HERALD_PUBLIC_URL: `https://${HOST}`, ...env },
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
      { type: 'TXT', name: `_dmarc.${domain}`, value: `v=DMARC1; p=none; rua=mailto:dmarc-reports@${domain}`, purpose: 'dmarc' },
      { type: 'MX', name: HOST, value: `10 ${HOST}`, purpose: 'bounces' },
    ],
    notes: [],
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

const ABSENT = { found: false, ok: false };
/** The four checks of a verification, SPF and DMARC absent unless given. */
const checks = (domain: string, verification: Record<string, unknown>, dkim: Record<string, unknown>, spf: Record<string, unknown> = ABSENT, dmarc: Record<string, unknown> = ABSENT) => [
  { record: `_herald.${domain}`, purpose: 'verification', ...verification },
  { record: `herald203001._domainkey.${domain}`, purpose: 'dkim', ...dkim },
  { record: domain, purpose: 'spf', ...spf },
  { record: `_dmarc.${domain}`, purpose: 'dmarc', ...dmarc },
];
const OK = { found: true, ok: true };

// ---- adding ----

test('adding a domain with an API key answers 201, unverified, with the five records to publish', async (t) => {
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
  assert.deepStrictEqual(res.json(), { ...domainView('news.acme.org', published), checks: checks('news.acme.org', failed, failed, failed, failed) });
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

// ---- the records suggested for each shape of public URL ----

/** The SPF, DMARC and bounce records and the notes suggested for news.acme.org under this configuration. */
async function suggested(t: TestContext, env: Record<string, string>) {
  const h = await start(t, undefined, env);
  const res = await post(h.service, '/v1/domains', h.account.apiKey, { domain: 'news.acme.org' });
  assert.equal(res.statusCode, 201, res.body);
  const view = res.json() as { records: { type: string; name: string; value: string; purpose: string }[]; notes: unknown[] };
  return { records: view.records.filter((r) => r.purpose !== 'verification' && r.purpose !== 'dkim'), notes: view.notes };
}

const DMARC = { type: 'TXT', name: '_dmarc.news.acme.org', value: 'v=DMARC1; p=none; rua=mailto:dmarc-reports@news.acme.org', purpose: 'dmarc' };

test('a public URL with a host name and a port suggests SPF include of the host and an MX naming it, without the port', async (t) => {
  assert.deepStrictEqual(await suggested(t, { HERALD_PUBLIC_URL: 'https://mail.herald.example:8443/app' }), {
    records: [
      { type: 'TXT', name: 'news.acme.org', value: 'v=spf1 include:mail.herald.example ~all', purpose: 'spf' },
      DMARC,
      { type: 'MX', name: 'mail.herald.example', value: '10 mail.herald.example', purpose: 'bounces' },
    ],
    notes: [],
  });
});

test('an IPv4 public URL suggests SPF ip4 and no MX, with a note saying why and what to do', async (t) => {
  assert.deepStrictEqual(await suggested(t, { HERALD_PUBLIC_URL: 'http://203.0.113.7:8080' }), {
    records: [{ type: 'TXT', name: 'news.acme.org', value: 'v=spf1 ip4:203.0.113.7 ~all', purpose: 'spf' }, DMARC],
    notes: [{
      code: 'bounce-domain-is-ip',
      address: '203.0.113.7',
      text: 'The bounce domain is the IP address 203.0.113.7, which can have no MX record: SPF names it with ip4:, and bounces reach herald only '
        + 'if the operator sets HERALD_BOUNCE_DOMAIN (or HERALD_PUBLIC_URL) to a host name whose A or AAAA record is this address.',
    }],
  });
});

test('an IPv6 public URL suggests SPF ip6 without brackets and no MX', async (t) => {
  const { records, notes } = await suggested(t, { HERALD_PUBLIC_URL: 'http://[2001:db8::25]:8080' });
  assert.deepStrictEqual([records, notes.map((n) => (n as { code: string }).code)], [
    [{ type: 'TXT', name: 'news.acme.org', value: 'v=spf1 ip6:2001:db8::25 ~all', purpose: 'spf' }, DMARC],
    ['bounce-domain-is-ip'],
  ]);
});

test('an IPv4 public URL with a named bounce domain suggests an MX to the bounce domain itself and an A record with the address', async (t) => {
  assert.deepStrictEqual(await suggested(t, { HERALD_PUBLIC_URL: 'http://203.0.113.7:8080', HERALD_BOUNCE_DOMAIN: 'bounces.herald.example' }), {
    records: [
      { type: 'TXT', name: 'news.acme.org', value: 'v=spf1 include:bounces.herald.example ~all', purpose: 'spf' },
      DMARC,
      { type: 'MX', name: 'bounces.herald.example', value: '10 bounces.herald.example', purpose: 'bounces' },
      { type: 'A', name: 'bounces.herald.example', value: '203.0.113.7', purpose: 'bounces' },
    ],
    notes: [{
      code: 'mail-host-is-ip',
      address: '203.0.113.7',
      text: 'HERALD_PUBLIC_URL names the IP address 203.0.113.7, which an MX record cannot name: the bounce domain bounces.herald.example points to itself and gets an A record with the address.',
    }],
  });
});

// ---- SPF and DMARC, advisory ----

/** Verifies news.acme.org with its token and key published, and these TXT records at the domain and at _dmarc. */
async function verifyWith(t: TestContext, spf: readonly string[], dmarc: readonly string[] = []) {
  const h = await start(t);
  const published = await addDomain(h, 'news.acme.org');
  publish(h.dns, 'news.acme.org', published);
  if (spf.length > 0) h.dns.set('news.acme.org', spf.map((data) => ({ type: 'TXT', name: 'news.acme.org', data })));
  if (dmarc.length > 0) h.dns.set('_dmarc.news.acme.org', dmarc.map((data) => ({ type: 'TXT', name: '_dmarc.news.acme.org', data })));
  const res = await verify(h, 'news.acme.org');
  assert.equal(res.statusCode, 200);
  const [, , spfCheck, dmarcCheck] = res.json().checks;
  return { verified: res.json().verified, spf: spfCheck, dmarc: dmarcCheck };
}

test('an SPF record including herald\'s host is found correct, and shown', async (t) => {
  assert.deepStrictEqual(await verifyWith(t, ['google-site-verification=abc', 'v=spf1 include:_spf.google.com include:herald.example.net ~all']), {
    verified: true,
    spf: { record: 'news.acme.org', purpose: 'spf', found: true, ok: true, value: 'v=spf1 include:_spf.google.com include:herald.example.net ~all' },
    dmarc: { record: '_dmarc.news.acme.org', purpose: 'dmarc', found: false, ok: false },
  });
});

test('an SPF record without herald\'s host is found wrong, and the domain still verifies', async (t) => {
  const { verified, spf } = await verifyWith(t, ['v=spf1 include:_spf.google.com -all']);
  assert.deepStrictEqual([verified, spf], [true, { record: 'news.acme.org', purpose: 'spf', found: true, ok: false, value: 'v=spf1 include:_spf.google.com -all' }]);
});

test('an SPF record that names herald\'s host with a failing qualifier is wrong', async (t) => {
  const { spf } = await verifyWith(t, ['v=spf1 -include:herald.example.net ~all']);
  assert.equal(spf.ok, false);
});

test('two SPF records are wrong even when one names herald (a permanent error for receivers)', async (t) => {
  const { spf } = await verifyWith(t, ['v=spf1 include:herald.example.net ~all', 'v=spf1 mx -all']);
  assert.deepStrictEqual(spf, {
    record: 'news.acme.org', purpose: 'spf', found: true, ok: false, value: 'v=spf1 include:herald.example.net ~all | v=spf1 mx -all',
  });
});

test('TXT records at the domain without SPF count as found but no SPF', async (t) => {
  const { spf } = await verifyWith(t, ['google-site-verification=abc']);
  assert.deepStrictEqual(spf, { record: 'news.acme.org', purpose: 'spf', found: true, ok: false });
});

test('a DMARC record of any policy is found correct, and shown', async (t) => {
  const { dmarc } = await verifyWith(t, [], ['v=DMARC1; p=quarantine; rua=mailto:d@acme.org']);
  assert.deepStrictEqual(dmarc, { record: '_dmarc.news.acme.org', purpose: 'dmarc', found: true, ok: true, value: 'v=DMARC1; p=quarantine; rua=mailto:d@acme.org' });
});

// ---- deleting ----

const remove = (h: Harness, domain: string, apiKey = h.account.apiKey) => h.service.http.inject({
  method: 'DELETE', url: `/v1/domains/${domain}`, headers: { authorization: `Bearer ${apiKey}` },
});

test('deleting an unused domain answers 204 and it is gone', async (t) => {
  const h = await start(t);
  await addDomain(h, 'news.acme.org');
  const res = await remove(h, 'News.Acme.org');
  assert.deepStrictEqual([res.statusCode, res.body], [204, '']);
  assert.equal((await get(h.service, '/v1/domains/news.acme.org', h.account.apiKey)).statusCode, 404);
});

test('deleting a domain a scheduled campaign sends from answers 409 naming the campaign, and keeps it', async (t) => {
  const h = await start(t);
  const list = (await post(h.service, '/v1/lists', h.account.apiKey, { name: 'News', optin: 'single' })).json().list_id as string;
  await post(h.service, '/v1/contacts', h.account.apiKey, { email: 'ana@example.org', lists: [list] });
  const campaign = (await post(h.service, '/v1/campaigns', h.account.apiKey, campaignBody([list], { send_at: '2099-01-01T00:00:00Z' }))).json().campaign_id as string;
  assert.equal((await post(h.service, `/v1/campaigns/${campaign}/send`, h.account.apiKey, {})).statusCode, 200);
  const res = await remove(h, 'example.com');
  assert.equal(res.statusCode, 409);
  assert.deepStrictEqual(res.json(), { message: 'The domain is used by a scheduled or running campaign', detail: `used by campaign ${campaign} (July news)` });
  assert.equal((await get(h.service, '/v1/domains/example.com', h.account.apiKey)).statusCode, 200);
});

test('a draft campaign from the domain does not hold its deletion', async (t) => {
  const h = await start(t);
  const list = (await post(h.service, '/v1/lists', h.account.apiKey, { name: 'News', optin: 'single' })).json().list_id as string;
  assert.equal((await post(h.service, '/v1/campaigns', h.account.apiKey, campaignBody([list]))).statusCode, 201);
  assert.equal((await remove(h, 'example.com')).statusCode, 204);
});

test('another account\'s domain answers 404 to deleting, and stays', async (t) => {
  const h = await start(t);
  await addDomain(h, 'news.acme.org');
  const other = await openAccount(h.service, { name: 'other' });
  const res = await remove(h, 'news.acme.org', other.apiKey);
  assert.deepStrictEqual([res.statusCode, res.json()], [404, NOT_FOUND]);
  assert.equal((await get(h.service, '/v1/domains/news.acme.org', h.account.apiKey)).statusCode, 200);
});
