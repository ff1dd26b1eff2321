// An SMSC's throughput cap held across workers through Redis (HERALD_REDIS_URL): two
// transports bound to one SMSC account stay under the cap together. The test that
// needs a real Redis (TEST_REDIS_URL) is skipped without it, with that reason; a Redis
// that is not there at all is a closed port and needs none.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { smppTransport, type SmppTransportOptions } from '../../../src/channels/sms/smpp-transport.ts';
import type { SmppTiming } from '../../../src/channels/sms/smpp-session.ts';
import type { Outbound, SmsPayload } from '../../../src/domain/outbound.ts';
import { splitSegments } from '../../../src/domain/sms-request.ts';
import { startSmsc, type Smsc } from '../../peers/smsc.ts';
import { closedPort } from '../../support/closed-port.ts';

const REDIS_URL = process.env.TEST_REDIS_URL;
const skip = REDIS_URL === undefined || REDIS_URL === '' ? 'TEST_REDIS_URL is not set' : false;

const FAST: Partial<SmppTiming> = { bindWaitMs: 1000, responseTimeoutMs: 1000, enquireLinkMs: 60_000, reconnectMinMs: 20, reconnectMaxMs: 100 };
const never = new AbortController().signal;

function sms(n: number): Outbound<SmsPayload> {
  const text = `message ${n}`;
  return { msgid: `0198a3c0-0000-7000-8000-${String(n).padStart(12, '0')}`, accountId: 'acc', attempt: 1, recipient: '+4915112345678', payload: { text, segments: splitSegments(text) } };
}

async function smscFor(t: TestContext): Promise<Smsc & { submittedAt: number[] }> {
  const smsc = await startSmsc();
  t.after(() => smsc.close());
  const submittedAt: number[] = [];
  smsc.events.on('submit', () => submittedAt.push(performance.now()));
  return Object.assign(smsc, { submittedAt });
}

/** A worker's SMPP transport with the cap shared through `redisUrl`. */
function workerTransport(t: TestContext, url: string, sharedCap: NonNullable<SmppTransportOptions['sharedCap']>, logger?: pino.Logger) {
  const transport = smppTransport({ url, onReceipt: async () => {}, timing: FAST, sharedCap, ...(logger ? { logger } : {}) });
  t.after(() => transport.close());
  return transport;
}

/** The most submits that fall within any `spanMs` of one another. */
function mostWithin(times: readonly number[], spanMs: number): number {
  let most = 0;
  for (let first = 0, last = 0; last < times.length; last++) {
    while (times[last]! - times[first]! >= spanMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

test('two workers capped at 50 per second on one SMSC account take about 2 s for 100 messages together', { skip }, async (t) => {
  const smsc = await smscFor(t);
  const sharedCap = { url: REDIS_URL!, failure: 'local' as const, keyPrefix: `test:${randomUUID()}:` };
  const workers = [workerTransport(t, smsc.url('?throughput=50&window=10'), sharedCap), workerTransport(t, smsc.url('?throughput=50&window=10'), sharedCap)];
  for (const worker of workers) assert.equal((await worker.send(sms(0), never)).kind, 'accepted');
  smsc.submittedAt.length = 0;

  const outcomes = await Promise.all(Array.from({ length: 100 }, (_, n) => workers[n % 2]!.send(sms(n + 1), never)));

  assert.deepStrictEqual(new Set(outcomes.map((o) => o.kind)), new Set(['accepted']));
  const times = smsc.submittedAt;
  assert.equal(times.length, 100);
  // 100 slots 20 ms apart: 99 gaps. Each worker alone would have taken half as long.
  const spanMs = times.at(-1)! - times[0]!;
  assert.ok(spanMs >= 1900, `100 submits within ${Math.round(spanMs)} ms`);
  // Spread across both workers as the SMSC counts: 25 in any half second, and a few more
  // where a stalled event loop (a busy machine) let slots that were due fire together.
  assert.ok(mostWithin(times, 500) <= 30, `${mostWithin(times, 500)} submits within 500 ms`);
});

test('with Redis unreachable and failure local, each worker keeps the cap on its own and warns once', async (t) => {
  const smsc = await smscFor(t);
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'info' }, new Writable({ write(chunk, _encoding, done) { lines.push(JSON.parse(String(chunk))); done(); } }));
  const worker = workerTransport(t, smsc.url('?throughput=20'), { url: `redis://127.0.0.1:${await closedPort()}`, failure: 'local', keyPrefix: 'test:' }, logger);
  assert.equal((await worker.send(sms(0), never)).kind, 'accepted');
  const started = performance.now();

  const outcomes = await Promise.all([1, 2, 3].map((n) => worker.send(sms(n), never)));

  assert.deepStrictEqual(outcomes.map((o) => o.kind), ['accepted', 'accepted', 'accepted']);
  // 20 per second: one every 50 ms, so the third waits at least 100 ms.
  const tookMs = performance.now() - started;
  assert.ok(tookMs >= 95, `took ${Math.round(tookMs)} ms`);
  assert.deepStrictEqual(lines.filter((l) => l.level === 40 && l.msg.startsWith('Redis')).map((l) => l.msg), [
    'Redis unreachable: the SMSC throughput cap is held per process until it is back (HERALD_REDIS_FAILURE=local)',
  ]);
});

test('with Redis unreachable and failure closed, the message is deferred without reaching the SMSC', async (t) => {
  const smsc = await smscFor(t);
  const worker = workerTransport(t, smsc.url('?throughput=20'), { url: `redis://127.0.0.1:${await closedPort()}`, failure: 'closed', keyPrefix: 'test:' });

  const outcome = await worker.send(sms(1), never);

  assert.deepStrictEqual(outcome, { kind: 'deferred', peer: `127.0.0.1:${smsc.port}`, response: 'SMSC throughput cap cannot be coordinated: Redis unreachable' });
  assert.equal(smsc.submits.length, 0);
});
