// Random input on the template API, the operator API, and the query strings and path
// ids of the read routes: every answer a clean 4xx or success, nothing logged at error.
// The last test shows that the detector fails on an injected fault (the send routes'
// own fuzz tests are in bad-input.test.ts).
import { test, type TestContext } from 'node:test';
import assert, { AssertionError } from 'node:assert/strict';
import { sql } from 'kysely';
import type { Service } from '../../src/service.ts';
import { captureLog, unexpectedRequestErrors, type CapturedLog } from '../support/captured-log.ts';
import { fuzzRequests, pick, prng, randomBodies, randomQuery, STRINGS, type FuzzRequest } from '../support/fuzz.ts';
import { ADMIN_TOKEN, emailBody, openAccount, startService, type TestAccount } from '../support/service.ts';

async function started(t: TestContext): Promise<{ service: Service; log: CapturedLog; account: TestAccount }> {
  const log = captureLog();
  const service = await startService(t, { logger: log.logger });
  const account = await openAccount(service, { messagesLeft: 100_000 });
  return { service, log, account };
}

const TEMPLATE = { name: 'welcome', subject: 'Hi {{name}}', html: '<p>Hi {{name}}{{#if vip}}, VIP{{/if}}</p>', text: 'Hi {{name}}' };

test('300 random template bodies, created and replaced, get a clean 4xx or success and log no error', async (t) => {
  const { service, log, account } = await started(t);
  const created = await service.http.inject({
    method: 'POST', url: '/v1/email/templates', headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' }, payload: JSON.stringify(TEMPLATE),
  });
  assert.equal(created.statusCode, 201);
  const id = created.json().template_id as string;
  const auth = `Bearer ${account.apiKey}`;
  const posts = await fuzzRequests(service, log, auth, randomBodies(11, 150, 'POST', '/v1/email/templates', TEMPLATE), [201, 400, 409]);
  const puts = await fuzzRequests(service, log, auth, randomBodies(12, 150, 'PUT', `/v1/email/templates/${id}`, TEMPLATE), [200, 400, 404, 409]);
  assert.ok((posts.get(201) ?? 0) > 0 && (posts.get(400) ?? 0) > 0, JSON.stringify([...posts]));
  assert.ok((puts.get(200) ?? 0) > 0 && (puts.get(400) ?? 0) > 0, JSON.stringify([...puts]));
});

const NEW_ACCOUNT = {
  name: 'acme', messagesLeft: 10, balance: '1.50', whatsappPrice: '0.0147', rateLimitPerSecond: 5, ipAllowList: ['10.0.0.0/8', '2001:db8::/32'],
  services: { email: true, sms: false }, webhookUrl: 'https://127.0.0.1/hook', webhookEvents: ['message.delivered'], tracking: { opens: false },
};

test('400 random operator bodies (accounts, updates, keys, domains, WhatsApp templates) get a clean 4xx or success and log no error', async (t) => {
  const { service, log, account } = await started(t);
  const auth = `Bearer ${ADMIN_TOKEN}`;
  const operator = '/admin/v1/accounts';
  const allowed = [200, 201, 400, 404, 409];
  const seen = new Map<number, number>();
  const runs: Iterable<FuzzRequest>[] = [
    randomBodies(21, 100, 'POST', operator, NEW_ACCOUNT),
    randomBodies(22, 100, 'PATCH', `${operator}/${account.id}`, { ...NEW_ACCOUNT, addMessages: 5, addBalance: '2.5' }),
    randomBodies(23, 70, 'POST', `${operator}/${account.id}/api-keys`, { scopes: ['email', 'sms'], expiresAt: '2099-01-01T00:00:00Z' }),
    randomBodies(24, 60, 'POST', `${operator}/${account.id}/domains`, { domain: 'mail.example.net' }),
    randomBodies(25, 70, 'POST', `${operator}/${account.id}/whatsapp-templates`, { name: 'otp', language: 'es', body: 'Code {{1}}', status: 'APPROVED' }),
  ];
  for (const run of runs) {
    for (const [status, count] of await fuzzRequests(service, log, auth, run, allowed)) seen.set(status, (seen.get(status) ?? 0) + count);
  }
  assert.ok((seen.get(400) ?? 0) > 0 && (seen.get(201) ?? 0) + (seen.get(200) ?? 0) > 0, JSON.stringify([...seen]));
});

/** The read routes, each with the query parameters it knows. */
const QUERIES: readonly { readonly path: string; readonly names: readonly string[] }[] = [
  { path: '/v1/messages', names: ['status', 'channel', 'since', 'recipient', 'cursor', 'limit'] },
  { path: '/v1/suppressions', names: ['cursor', 'limit'] },
  { path: '/v1/webhooks/deliveries', names: ['status', 'msgid', 'cursor', 'limit'] },
  { path: '/v1/contacts', names: ['list_id', 'email', 'cursor', 'limit'] },
  { path: '/v1/lists', names: ['cursor', 'limit'] },
  { path: '/v1/email/templates', names: ['cursor', 'limit'] },
  { path: '/v1/domains', names: ['cursor'] },
  { path: '/v1/webhooks', names: ['format'] },
  { path: '/v1/campaigns', names: ['status', 'cursor', 'limit'] },
];
/** Routes with an id in the path, and the query parameters they know. */
const BY_ID: readonly { readonly path: (id: string) => string; readonly names: readonly string[] }[] = [
  { path: (id) => `/v1/messages/${id}`, names: [] },
  { path: (id) => `/v1/messages/${id}/raw`, names: [] },
  { path: (id) => `/v1/email/${id}/certificate`, names: ['format'] },
  { path: (id) => `/v1/email/templates/${id}`, names: [] },
  { path: (id) => `/v1/contacts/${id}`, names: [] },
  { path: (id) => `/v1/lists/${id}`, names: [] },
  { path: (id) => `/v1/webhooks/deliveries/${id}`, names: [] },
  { path: (id) => `/v1/contacts/imports/${id}`, names: [] },
  { path: (id) => `/v1/campaigns/${id}`, names: [] },
  { path: (id) => `/v1/campaigns/${id}/quote`, names: [] },
  { path: (id) => `/v1/campaigns/${id}/stats`, names: [] },
  { path: (id) => `/v1/campaigns/${id}/stats/timeline`, names: ['interval'] },
  { path: (id) => `/v1/campaigns/${id}/recipients`, names: ['status', 'cursor', 'limit'] },
  { path: (id) => `/v1/campaigns/tags/${id}/stats`, names: [] },
];
const IDS = ['0190a0a0-0000-7000-8000-000000000000', 'x', '%00', '%ED%A0%80', '%FF', '..', '%2e%2e%2f', 'a'.repeat(2000), '💥', '-1', '__proto__', 'constructor'];

function* randomReads(seed: number, count: number): Generator<FuzzRequest> {
  const rand = prng(seed);
  for (let i = 0; i < count; i++) {
    if (rand() < 0.6) {
      const route = pick(rand, QUERIES);
      yield { method: 'GET', url: `${route.path}${randomQuery(rand, route.names)}` };
    } else {
      const route = pick(rand, BY_ID);
      const id = rand() < 0.8 ? pick(rand, IDS) : encodeURIComponent(pick(rand, STRINGS));
      yield { method: 'GET', url: `${route.path(id)}${randomQuery(rand, route.names)}` };
    }
  }
}

test('300 random query strings and path ids on the read routes get 200, 400 or 404 and log no error', async (t) => {
  const { service, log, account } = await started(t);
  const seen = await fuzzRequests(service, log, `Bearer ${account.apiKey}`, randomReads(31, 300), [200, 400, 404]);
  assert.ok((seen.get(200) ?? 0) > 0 && (seen.get(400) ?? 0) > 0 && (seen.get(404) ?? 0) > 0, JSON.stringify([...seen]));
});

test('100 random query strings on the operator read routes get 200, 400 or 404 and log no error', async (t) => {
  const { service, log, account } = await started(t);
  const rand = prng(41);
  const reads = Array.from({ length: 100 }, (): FuzzRequest => {
    const path = pick(rand, ['/admin/v1/inbound-reports', `/admin/v1/accounts/${account.id}/ledger`, `/admin/v1/accounts/${pick(rand, IDS)}`, `/admin/v1/inbound-reports/${pick(rand, IDS)}`]);
    return { method: 'GET', url: `${path}${randomQuery(rand, ['cursor', 'limit', 'kind', 'since'])}` };
  });
  const seen = await fuzzRequests(service, log, `Bearer ${ADMIN_TOKEN}`, reads, [200, 400, 404]);
  assert.ok((seen.get(200) ?? 0) > 0, JSON.stringify([...seen]));
});

test('the fuzz check fails when the store throws, though every answer is a 400', async (t) => {
  const { service, log, account } = await started(t);
  // The fault: a table the accept path writes is gone, so a valid send throws inside the route.
  await sql`drop table ledger`.execute(service.deps.db);
  await assert.rejects(
    fuzzRequests(service, log, `Bearer ${account.apiKey}`, randomBodies(1, 200, 'POST', '/v1/email', emailBody()), [200, 400, 401]),
    (error: unknown) => {
      assert.ok(error instanceof AssertionError);
      assert.match(error.message, /the service logged 1 error\(s\)/);
      assert.match(error.message, /→ 400 {"message":"Could not send message, an error has ocurred"}/);
      return true;
    },
  );
  assert.equal(await unexpectedRequestErrors(service), 1);
});
