// /v1/receiving-domains: an account adds a domain to receive email at, publishes the MX
// herald names, verifies it against a real DNS server on loopback, sets its rules, and
// removes it. One service for the file; each test has an account and a domain of its own.
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { Service } from '../../src/service.ts';
import { startDnsServer, type DnsPeer } from '../peers/dns-server.ts';
import { get, openAccount, post, startService } from '../support/service.ts';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const HOST = 'herald.example.net';
const BAD_FIELD = 'Invalid request, a field has the wrong type or value';

const cleanups: (() => unknown)[] = [];
const fileScope = { after: (fn: () => unknown) => cleanups.push(fn) } as unknown as TestContext;
let service: Service;
let dns: DnsPeer;

before(async () => {
  dns = await startDnsServer();
  cleanups.push(() => dns.close());
  service = await startService(fileScope, { clock: () => T0, env: { HERALD_DNS_SERVERS: dns.server, HERALD_PUBLIC_URL: `https://${HOST}` } });
});
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

let domains = 0;
const nextDomain = (): string => `in${++domains}.acme.test`;

function send(method: 'PUT' | 'DELETE', url: string, apiKey: string, body?: unknown): Promise<LightMyRequestResponse> {
  return service.http.inject({
    method, url, headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

/** An account and a domain it added; the answer's body. */
async function added(domain = nextDomain()): Promise<{ apiKey: string; view: { id: string; domain: string } }> {
  const { apiKey } = await openAccount(service);
  const res = await post(service, '/v1/receiving-domains', apiKey, { domain });
  assert.equal(res.statusCode, 201, res.body);
  return { apiKey, view: res.json() };
}

const unverified = (id: string, domain: string) => ({
  id, domain, verified: false, verified_at: null,
  records: [{ type: 'MX', name: domain, value: `10 ${HOST}`, purpose: 'receiving' }],
  rules: [], created_at: '2030-01-01T00:00:00.000Z',
});

test('adding a domain answers 201 with the MX record to publish; it reads back alone and in the list', async () => {
  const domain = nextDomain();
  const { apiKey, view } = await added(domain.toUpperCase());

  assert.deepStrictEqual(view, unverified(view.id, domain));
  assert.deepStrictEqual((await get(service, `/v1/receiving-domains/${view.id}`, apiKey)).json(), view);
  assert.deepStrictEqual((await get(service, '/v1/receiving-domains', apiKey)).json(), { data: [view] });
});

test('a domain another account (or the same) has already is a conflict: 409 Already exists', async () => {
  const { apiKey, view } = await added();
  const other = await openAccount(service);

  for (const key of [other.apiKey, apiKey]) {
    const res = await post(service, '/v1/receiving-domains', key, { domain: view.domain });
    assert.equal(res.statusCode, 409);
    assert.deepStrictEqual(res.json(), { message: 'Already exists' });
  }
});

test('a name that is not a host name is refused with 400 naming the field', async () => {
  const { apiKey } = await openAccount(service);

  const res = await post(service, '/v1/receiving-domains', apiKey, { domain: 'localhost' });

  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: BAD_FIELD, detail: 'domain: must be a host name with a dot, e.g. example.com' });
});

test('verify looks the MX up: absent it stays unverified, naming herald it verifies', async () => {
  const { apiKey, view } = await added();
  const url = `/v1/receiving-domains/${view.id}/verify`;

  const before = await post(service, url, apiKey, {});
  assert.deepStrictEqual(before.json(), { ...unverified(view.id, view.domain), checks: [{ record: view.domain, found: false, ok: false }] });

  dns.set(view.domain, [{ type: 'MX', name: view.domain, ttl: 60, data: { preference: 10, exchange: `${HOST.toUpperCase()}.` } }]);
  const after = await post(service, url, apiKey, {});
  assert.equal(after.statusCode, 200);
  assert.deepStrictEqual(after.json(), {
    ...unverified(view.id, view.domain), verified: true, verified_at: '2030-01-01T00:00:00.000Z', checks: [{ record: view.domain, found: true, ok: true }],
  });
});

test('rules replace the list as given; a forward needs an address outside the domain', async () => {
  const { apiKey, view } = await added();
  const url = `/v1/receiving-domains/${view.id}/rules`;
  const rules = [
    { address: 'noreply', action: 'refuse' },
    { address: 'desk', action: 'forward', forward_to: 'agent@helpdesk.example' },
    { address: '*', action: 'webhook' },
  ];

  const set = await send('PUT', url, apiKey, { rules });
  assert.equal(set.statusCode, 200, set.body);
  assert.deepStrictEqual(set.json(), { ...unverified(view.id, view.domain), rules });

  for (const [rule, detail] of [
    [{ address: 'desk', action: 'forward' }, 'rules[0].forward_to: must be an email address'],
    [{ address: 'desk', action: 'forward', forward_to: `loop@${view.domain}` }, 'rules[0].forward_to: must not be at the domain itself'],
    [{ address: 'desk', action: 'webhook', forward_to: 'agent@helpdesk.example' }, 'rules[0].forward_to: is only for the forward action'],
  ] as const) {
    const refused = await send('PUT', url, apiKey, { rules: [rule] });
    assert.equal(refused.statusCode, 400);
    assert.deepStrictEqual(refused.json(), { message: BAD_FIELD, detail });
  }
  assert.deepStrictEqual((await get(service, `/v1/receiving-domains/${view.id}`, apiKey)).json().rules, rules);
});

test('a removed domain answers 204, then 404 Not found; another account never sees it', async () => {
  const { apiKey, view } = await added();
  const other = await openAccount(service);

  assert.equal((await get(service, `/v1/receiving-domains/${view.id}`, other.apiKey)).statusCode, 404);
  assert.equal((await send('DELETE', `/v1/receiving-domains/${view.id}`, other.apiKey)).statusCode, 404);
  assert.equal((await send('DELETE', `/v1/receiving-domains/${view.id}`, apiKey)).statusCode, 204);
  const gone = await get(service, `/v1/receiving-domains/${view.id}`, apiKey);
  assert.equal(gone.statusCode, 404);
  assert.deepStrictEqual(gone.json(), { message: 'Not found' });
});
