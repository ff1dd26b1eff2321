// A signed-in user's own rate allowance (HERALD_SESSION_RATE_LIMIT), over real HTTP on
// loopback: a page of the web application asks several things at once and is served,
// while a key of the same account stays at the account's rate (the interface's 429).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { openAccount, startService } from '../support/service.ts';
import { signedInUser, T0, type BrowserSession } from '../support/users.ts';

const RATE_LIMITED = {
  success: false,
  message: 'Ha excedido el límite de peticiones permitidas por segundo.',
  error: 'RATE_LIMIT_EXCEEDED',
};

/** `n` reads sent at once, with a key or with a session's cookie. */
function burst(base: string, n: number, auth: { apiKey: string } | BrowserSession): Promise<Response[]> {
  const headers: Record<string, string> = 'apiKey' in auth ? { authorization: `Bearer ${auth.apiKey}` } : { cookie: `herald_session=${auth.cookie}` };
  return Promise.all(Array.from({ length: n }, () => fetch(`${base}/v1/messages?limit=5`, { headers })));
}

/** An account at the interface's default rate (2 per second), its owner signed in, herald on a loopback port. */
async function world(t: TestContext, env: Record<string, string> = {}) {
  const clock = { now: T0 };
  const service = await startService(t, { clock: () => clock.now, env });
  const account = await openAccount(service, { rateLimitPerSecond: 2 });
  const session = await signedInUser({ service, account, clock }, 'owner@acme.test', 'owner');
  const base = await service.http.listen({ port: 0, host: '127.0.0.1' });
  return { account, session, base };
}

test('a session making 10 reads at once is served, though the account\'s keys are limited to 2 per second', async (t) => {
  const { session, base } = await world(t);
  const answers = await burst(base, 10, session);
  assert.deepStrictEqual(answers.map((r) => r.status), Array(10).fill(200));
  assert.equal(answers[0]?.headers.get('ratelimit-limit'), '20');
});

test('a key of the same account is still held to the account\'s 2 per second, the session\'s reads apart', async (t) => {
  const { account, session, base } = await world(t);
  await burst(base, 10, session);
  const answers = await burst(base, 6, { apiKey: account.apiKey });
  const statuses = answers.map((r) => r.status).sort();
  assert.deepStrictEqual(statuses, [200, 200, 429, 429, 429, 429]);
  const refused = answers.find((r) => r.status === 429) ?? assert.fail('no 429');
  assert.equal(refused.headers.get('ratelimit-limit'), '2');
  assert.deepStrictEqual(await refused.json(), RATE_LIMITED);
});

test('a session past its own allowance gets the 429 with the session\'s limit in its headers', async (t) => {
  const { session, base } = await world(t, { HERALD_SESSION_RATE_LIMIT: '5' });
  const answers = await burst(base, 8, session);
  assert.deepStrictEqual(answers.map((r) => r.status).sort(), [200, 200, 200, 200, 200, 429, 429, 429]);
  const refused = answers.find((r) => r.status === 429) ?? assert.fail('no 429');
  assert.equal(refused.headers.get('ratelimit-limit'), '5');
  assert.deepStrictEqual(await refused.json(), RATE_LIMITED);
});
