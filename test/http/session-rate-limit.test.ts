// A signed-in user's own rate allowance (HERALD_SESSION_RATE_LIMIT), over real HTTP on
// loopback: a page of the web application asks several things at once and is served,
// while a key of the same account stays at the account's rate (the interface's 429).
// With HERALD_REDIS_URL the user's allowance is one across API processes, like an account's.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Service } from '../../src/service.ts';
import { openAccount, startService, type TestAccount } from '../support/service.ts';
import { asUser, signedInUser, T0, type BrowserSession } from '../support/users.ts';

const RATE_LIMITED = {
  success: false,
  message: 'Ha excedido el límite de peticiones permitidas por segundo.',
  error: 'RATE_LIMIT_EXCEEDED',
};
const REDIS_URL = process.env.TEST_REDIS_URL;
const noRedis = REDIS_URL === undefined || REDIS_URL === '' ? 'TEST_REDIS_URL is not set' : false;

/** `n` reads sent at once, with a key or with a session's cookie. */
function burst(base: string, n: number, auth: { apiKey: string } | BrowserSession): Promise<Response[]> {
  const headers: Record<string, string> = 'apiKey' in auth ? { authorization: `Bearer ${auth.apiKey}` } : { cookie: `herald_session=${auth.cookie}` };
  return Promise.all(Array.from({ length: n }, () => fetch(`${base}/v1/messages?limit=5`, { headers })));
}

/**
 * A window opens at the first request and lasts one second, so a burst that is to be
 * refused in part says something only when all of it arrived within that second; on a
 * loaded machine it is tried again (up to 5 times) with a fresh caller from `next`.
 */
async function withinOneWindow<C>(next: () => Promise<C>, send: (caller: C) => Promise<Response[]>): Promise<Response[]> {
  for (let attempt = 1; ; attempt++) {
    const caller = await next();
    const started = performance.now();
    const answers = await send(caller);
    if (performance.now() - started < 800 || attempt === 5) return answers;
  }
}

const statuses = (answers: readonly Response[]): number[] => answers.map((r) => r.status).sort();

interface World {
  readonly service: Service;
  readonly base: string;
  /** A new owner of `account` (the world's own by default), signed in. */
  newUser(account?: TestAccount): Promise<BrowserSession>;
}

/** An account at the interface's default rate (2 per second), herald on a loopback port. */
async function world(t: TestContext, env: Record<string, string> = {}): Promise<World> {
  const clock = { now: T0 };
  const service = await startService(t, { clock: () => clock.now, env });
  const account = await openAccount(service, { rateLimitPerSecond: 2 });
  const base = await service.http.listen({ port: 0, host: '127.0.0.1' });
  let users = 0;
  return { service, base, newUser: (of = account) => signedInUser({ service, account: of, clock }, `user${++users}@acme.test`, 'owner') };
}

test('a session making 10 reads at once is served, though the account\'s keys are limited to 2 per second', async (t) => {
  const { base, newUser } = await world(t);
  const answers = await burst(base, 10, await newUser());
  assert.deepStrictEqual(answers.map((r) => r.status), Array(10).fill(200));
  assert.equal(answers[0]?.headers.get('ratelimit-limit'), '20');
});

test('a key of the account is still held to the account\'s 2 per second while its users browse', async (t) => {
  const { service, base, newUser } = await world(t);
  const answers = await withinOneWindow(
    async () => {
      const account = await openAccount(service, { rateLimitPerSecond: 2 });
      const browsing = await burst(base, 10, await newUser(account));
      assert.deepStrictEqual(browsing.map((r) => r.status), Array(10).fill(200));
      return account;
    },
    (account) => burst(base, 6, account),
  );
  assert.deepStrictEqual(statuses(answers), [200, 200, 429, 429, 429, 429]);
  const refused = answers.find((r) => r.status === 429) ?? assert.fail('no 429');
  assert.equal(refused.headers.get('ratelimit-limit'), '2');
  assert.deepStrictEqual(await refused.json(), RATE_LIMITED);
});

test('a user past their own allowance gets the 429 with the user\'s limit in its headers', async (t) => {
  const { base, newUser } = await world(t, { HERALD_SESSION_RATE_LIMIT: '5' });
  const answers = await withinOneWindow(newUser, (session) => burst(base, 8, session));
  assert.deepStrictEqual(statuses(answers), [200, 200, 200, 200, 200, 429, 429, 429]);
  const refused = answers.find((r) => r.status === 429) ?? assert.fail('no 429');
  assert.equal(refused.headers.get('ratelimit-limit'), '5');
  assert.deepStrictEqual(await refused.json(), RATE_LIMITED);
});

test('with Redis, a user\'s allowance is one across two API processes', { skip: noRedis }, async (t) => {
  // Two services on one SQLite file and one Redis key space: they share nothing else, as two processes.
  const dir = await mkdtemp(join(tmpdir(), 'herald-session-rate-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const env = { HERALD_DATABASE_URL: `sqlite:${join(dir, 'herald.db')}`, HERALD_REDIS_URL: REDIS_URL ?? '', HERALD_REDIS_PREFIX: `test:${randomUUID()}:`, HERALD_SESSION_RATE_LIMIT: '3' };
  const clock = { now: T0 };
  const a = await startService(t, { clock: () => clock.now, env });
  const b = await startService(t, { clock: () => clock.now, env });
  const account = await openAccount(a);
  let users = 0;
  const answers = await withinOneWindow(
    () => signedInUser({ service: a, account, clock }, `user${++users}@acme.test`, 'owner'),
    async (session) => {
      const replies = await Promise.all(Array.from({ length: 6 }, (_, i) => asUser(i % 2 === 0 ? a : b, session, 'GET', '/v1/messages?limit=5')));
      return replies.map((r) => new Response(r.body, { status: r.statusCode }));
    },
  );
  assert.deepStrictEqual(statuses(answers), [200, 200, 200, 429, 429, 429]);
});
