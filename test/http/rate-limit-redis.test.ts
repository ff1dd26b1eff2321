// HERALD_REDIS_URL: one per-account limit across API processes, counted in Redis, and
// what an unreachable Redis does under each HERALD_REDIS_FAILURE. The tests that need a
// real Redis (TEST_REDIS_URL) are skipped without it, with that reason; a Redis that is
// not there at all is a closed port and needs none.
//
// Two "API processes" are two services in this process on one SQLite file, each with
// its own Redis connection: they share nothing but the database and Redis, as two
// processes would. Each test writes under its own key prefix.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import type { Service } from '../../src/service.ts';
import { REDIS_COMMAND_TIMEOUT_MS } from '../../src/redis-client.ts';
import { startTcpProxy, type TcpProxy } from '../peers/tcp-proxy.ts';
import { emailBody, openAccount, post, startService, type TestAccount } from '../support/service.ts';
import { closedPort } from '../support/closed-port.ts';

const REDIS_URL = process.env.TEST_REDIS_URL;
const skip = REDIS_URL === undefined || REDIS_URL === '' ? 'TEST_REDIS_URL is not set' : false;

const RATE_LIMITED = {
  success: false,
  message: 'Ha excedido el límite de peticiones permitidas por segundo.',
  error: 'RATE_LIMIT_EXCEEDED',
};
const UNAVAILABLE = { message: 'Service temporarily unavailable, please try again' };

interface LogLine {
  readonly level: number;
  readonly msg: string;
}
const WARN = 40;

/** A pino logger whose lines the test reads. */
function capturingLogger(): { logger: pino.Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'info' }, new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as LogLine);
      done();
    },
  }));
  return { logger, lines };
}

const redisWarnings = (lines: readonly LogLine[]): string[] => lines.filter((l) => l.level === WARN && l.msg.startsWith('Redis')).map((l) => l.msg);

/** A service using `redisUrl`, on the SQLite file at `database` (a fresh in-memory store if absent). */
async function serviceOnRedis(
  t: TestContext,
  redisUrl: string,
  options: { failure?: 'local' | 'closed'; database?: string; prefix?: string; logger?: pino.Logger } = {},
): Promise<Service> {
  return startService(t, {
    ...(options.logger ? { logger: options.logger } : {}),
    // Services sharing one SQLite file are API processes that run no loop (a file has one
    // serving process: store/serving-lock.ts). In one test process a loop's write would also
    // stall both: node:sqlite waits out a lock synchronously, holding the holder's event loop too.
    ...(options.database ? { role: 'api' as const, imports: false, worker: false } : {}),
    env: {
      HERALD_REDIS_URL: redisUrl,
      HERALD_REDIS_FAILURE: options.failure ?? 'local',
      HERALD_REDIS_PREFIX: options.prefix ?? `test:${randomUUID()}:`,
      ...(options.database ? { HERALD_DATABASE_URL: `sqlite:${options.database}` } : {}),
    },
  });
}

const send = (service: Service, account: TestAccount) => post(service, '/v1/email', account.apiKey, emailBody());

/** Two services sharing one database file and one Redis key space; an account of the given rate. */
async function twoApiProcesses(t: TestContext, rateLimitPerSecond: number): Promise<{ a: Service; b: Service; account: TestAccount }> {
  const dir = await mkdtemp(join(tmpdir(), 'herald-redis-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const database = join(dir, 'herald.db');
  const prefix = `test:${randomUUID()}:`;
  const a = await serviceOnRedis(t, REDIS_URL!, { database, prefix });
  const b = await serviceOnRedis(t, REDIS_URL!, { database, prefix });
  // A first request is slow (cold caches); measured requests must fall in one second.
  const warmUp = await openAccount(a);
  for (const service of [a, b]) assert.equal((await send(service, warmUp)).statusCode, 200);
  const account = await openAccount(a, { rateLimitPerSecond });
  return { a, b, account };
}

/**
 * A window opens at an account's first request and lasts one second, so a burst says
 * something only when all of it arrived within that second. On a loaded machine a burst
 * can take longer: it is then tried again on a fresh account of the same rate.
 */
async function burstInOneWindow(
  t: TestContext,
  rateLimitPerSecond: number,
  burst: (services: { a: Service; b: Service }, account: TestAccount) => Promise<Response[]>,
): Promise<{ a: Service; b: Service; account: TestAccount; responses: Response[] }> {
  const { a, b, account: first } = await twoApiProcesses(t, rateLimitPerSecond);
  let account = first;
  for (let attempt = 1; ; attempt++) {
    const started = performance.now();
    const responses = await burst({ a, b }, account);
    if (performance.now() - started < 800 || attempt === 5) return { a, b, account, responses };
    account = await openAccount(a, { rateLimitPerSecond });
  }
}
type Response = Awaited<ReturnType<typeof send>>;

/** A relay in front of the test Redis, to freeze or cut. */
async function proxiedRedis(t: TestContext): Promise<{ proxy: TcpProxy; url: string }> {
  const target = new URL(REDIS_URL!);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
  t.after(() => proxy.close());
  const url = new URL(REDIS_URL!);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  return { proxy, url: url.href };
}

test('at 2 per second, 10 simultaneous requests spread over two API processes let 2 through', { skip }, async (t) => {
  const { responses } = await burstInOneWindow(t, 2, ({ a, b }, account) =>
    Promise.all(Array.from({ length: 10 }, (_, i) => send(i % 2 === 0 ? a : b, account))));

  assert.equal(responses.filter((r) => r.statusCode === 200).length, 2);
  const refused = responses.filter((r) => r.statusCode === 429);
  assert.equal(refused.length, 8);
  for (const r of refused) assert.deepStrictEqual(r.json(), RATE_LIMITED);
});

test('the RateLimit headers of one process count the requests served by the other', { skip }, async (t) => {
  const { a, b, account } = await twoApiProcesses(t, 3);

  const [fromA, fromB] = await Promise.all([send(a, account), send(b, account)]);

  // Counted apart, both would say 2.
  assert.deepStrictEqual([fromA.headers['ratelimit-remaining'], fromB.headers['ratelimit-remaining']].sort(), ['1', '2']);
  assert.equal(fromB.headers['ratelimit-limit'], '3');
});

test('the shared window reopens after the second has passed', { skip }, async (t) => {
  const { b, account, responses: burst } = await burstInOneWindow(t, 2, ({ a, b }, account) =>
    Promise.all([send(a, account), send(a, account), send(b, account), send(b, account)]));
  const refused = burst.filter((r) => r.statusCode === 429);
  assert.ok(refused.length >= 1);
  for (const r of refused) assert.equal(r.headers['retry-after'], '1');

  await sleep(1100);

  assert.equal((await send(b, account)).statusCode, 200);
});

test('Redis unreachable with HERALD_REDIS_FAILURE=closed: requests get 503 with the JSON body, health still answers', async (t) => {
  const service = await serviceOnRedis(t, `redis://127.0.0.1:${await closedPort()}`, { failure: 'closed' });
  const account = await openAccount(service, { rateLimitPerSecond: 2 });

  const res = await send(service, account);

  assert.equal(res.statusCode, 503);
  assert.deepStrictEqual(res.json(), UNAVAILABLE);
  assert.equal(res.headers['retry-after'], '1');
  assert.equal((await service.http.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
});

test('Redis unreachable with HERALD_REDIS_FAILURE=local: the process enforces the limit itself and warns once', async (t) => {
  const { logger, lines } = capturingLogger();
  const service = await serviceOnRedis(t, `redis://127.0.0.1:${await closedPort()}`, { failure: 'local', logger });
  const account = await openAccount(service, { rateLimitPerSecond: 2 });

  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) statuses.push((await send(service, account)).statusCode);

  assert.deepStrictEqual(statuses, [200, 200, 429, 429, 429]);
  assert.deepStrictEqual(redisWarnings(lines), ['Redis unreachable: account rate limits are counted per process until it is back (HERALD_REDIS_FAILURE=local)']);
});

test('a Redis that stops answering mid-run, failing closed: 503 within the command time-out, not a held request', { skip }, async (t) => {
  const { proxy, url } = await proxiedRedis(t);
  const service = await serviceOnRedis(t, url, { failure: 'closed' });
  const account = await openAccount(service, { rateLimitPerSecond: 100 });
  assert.equal((await send(service, account)).statusCode, 200);

  proxy.freeze();
  const started = performance.now();
  const res = await send(service, account);
  const tookMs = performance.now() - started;

  assert.equal(res.statusCode, 503);
  assert.deepStrictEqual(res.json(), UNAVAILABLE);
  assert.ok(tookMs < REDIS_COMMAND_TIMEOUT_MS + 750, `took ${Math.round(tookMs)} ms`);
});

test('a Redis that stops answering mid-run, falling back locally: requests are served, one warning for the outage', { skip }, async (t) => {
  const { proxy, url } = await proxiedRedis(t);
  const { logger, lines } = capturingLogger();
  const service = await serviceOnRedis(t, url, { failure: 'local', logger });
  const account = await openAccount(service, { rateLimitPerSecond: 100 });
  assert.equal((await send(service, account)).statusCode, 200);

  proxy.freeze();
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) statuses.push((await send(service, account)).statusCode);

  assert.deepStrictEqual(statuses, [200, 200, 200, 200, 200]);
  assert.equal(redisWarnings(lines).length, 1);
});

test('once Redis is back the limit is shared again, and the recovery is logged', { skip }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'herald-redis-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const database = join(dir, 'herald.db');
  const prefix = `test:${randomUUID()}:`;
  const { proxy, url } = await proxiedRedis(t);
  const { logger, lines } = capturingLogger();
  const flaky = await serviceOnRedis(t, url, { failure: 'local', database, prefix, logger });
  const steady = await serviceOnRedis(t, REDIS_URL!, { database, prefix });
  const account = await openAccount(flaky, { rateLimitPerSecond: 2 });

  proxy.cut();
  assert.equal((await send(flaky, account)).statusCode, 200);
  proxy.restore();
  // ioredis reconnects on its own; the limiter asks Redis again at most once a second.
  const deadline = Date.now() + 10_000;
  while (!lines.some((l) => l.msg === 'Redis reachable again: account rate limits are shared again')) {
    assert.ok(Date.now() < deadline, 'no recovery within 10 s');
    await sleep(1100);
    await send(flaky, account);
  }
  await sleep(1100);

  assert.equal((await send(flaky, account)).statusCode, 200);
  assert.equal((await send(flaky, account)).statusCode, 200);
  assert.equal((await send(steady, account)).statusCode, 429);
});
