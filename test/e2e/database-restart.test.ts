// Faults under load, end to end (issue 21, items 1 and 4): `serve --role api` and
// `serve --role worker` as real processes on a PostgreSQL cluster and a Redis of the
// test's own (test/support/throwaway-servers.ts: initdb in a temporary directory, never
// the machine's server), SMS at a steady rate to a real SMSC stand-in. PostgreSQL is
// restarted twice (`pg_ctl restart -m fast`: every connection terminated) and Redis is
// killed and started again, under load: both processes live on, every accepted message
// reaches the SMSC once, the ledger is exact. Then the worker is SIGKILLed holding
// claimed messages (the SMSC link frozen, so none of them has reached the SMSC), another
// is started, and its takeover of those messages is timed (fast takeover: heartbeats).
// The figures are printed for docs/operations.md. Skipped, saying so, without initdb or
// redis-server. test/run-postgres.ts leaves it out (it calls startCluster).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { startSmsc } from '../peers/smsc.ts';
import { startTcpProxy } from '../peers/tcp-proxy.ts';
import type { HeraldProcess } from '../support/herald-process.ts';
import { ledgerByReason, ledgerOf, messagesLeftOf, openAccountByAdmin, startCluster } from '../support/multi-process.ts';
import { skipWithoutInitdb, skipWithoutRedisServer, startThrowawayPostgres, startThrowawayRedis } from '../support/throwaway-servers.ts';

const RATE_PER_SECOND = 40;
const LOAD_MS = 20_000;
/** When, from the start of the load, each fault happens. */
const FIRST_RESTART_AT_MS = 3_000;
const SECOND_RESTART_AT_MS = 9_000;
const REDIS_KILL_AT_MS = 13_000;
const REDIS_START_AT_MS = 16_000;
/** Messages the killed worker holds when it dies. */
const HELD_AT_KILL = 20;
const TAKEOVER_LIMIT_MS = 15_000;
const CREDIT = 10_000;

const skip = skipWithoutInitdb || skipWithoutRedisServer;

async function waitFor<T>(check: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

test('PostgreSQL restarted twice and Redis killed under load: both processes live, every accepted SMS reaches the SMSC once, the ledger is exact; a killed worker\'s claimed messages are taken over within 15 s', { skip, timeout: 180_000 }, async (t) => {
  // Closed in the reverse order of their start (after-hooks run in the order they were added).
  const closers: (() => Promise<void>)[] = [];
  t.after(async () => {
    for (const close of closers.reverse()) await close();
  });
  const postgres = await startThrowawayPostgres();
  closers.push(() => postgres.stop());
  const redis = await startThrowawayRedis();
  closers.push(() => redis.stop());
  const smsc = await startSmsc();
  closers.push(() => smsc.close());
  // The worker reaches the SMSC through a relay the test can freeze (the takeover part).
  const link = await startTcpProxy({ host: '127.0.0.1', port: smsc.port });
  closers.push(() => link.close());

  const cluster = await startCluster({
    apis: 1,
    workers: [{}],
    postgresUrl: postgres.url,
    redisUrl: redis.url,
    workerEnv: { HERALD_SMS_TRANSPORT: smsc.url().replace(`:${smsc.port}`, `:${link.port}`) },
  });
  closers.push(() => cluster.stop());
  const api = cluster.apis[0]!;
  const worker = cluster.workers[0]!;
  const account = await openAccountByAdmin(api, { messagesLeft: CREDIT, rateLimitPerSecond: 100_000 });

  // What the SMSC received, per destination (each message has a number of its own), and when.
  const submitTimes: number[] = [];
  smsc.events.on('submit', () => submitTimes.push(performance.now()));
  const receivedBy = (): Map<string, number> => {
    const counts = new Map<string, number>();
    for (const submit of smsc.submits) counts.set(submit.destinationAddr.replace(/^\+/, ''), (counts.get(submit.destinationAddr.replace(/^\+/, '')) ?? 0) + 1);
    return counts;
  };

  let next = 0;
  const accepted: string[] = [];
  const refused = new Map<string, number>();
  const send = async (): Promise<string | undefined> => {
    const number = `52155${String(10_000_000 + (next += 1))}`;
    try {
      const res = await fetch(`${api.url}/v1/sms/send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'Your code is 1234', mobile_numbers: [`+${number}`] }),
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer();
      if (res.status === 200) {
        accepted.push(number);
        return number;
      }
      refused.set(String(res.status), (refused.get(String(res.status)) ?? 0) + 1);
    } catch (error) {
      const name = error instanceof Error ? error.name : 'error';
      refused.set(name, (refused.get(name) ?? 0) + 1);
    }
    return undefined;
  };

  // ---- Load with faults ----
  const began = performance.now();
  const restarts: { tookMs: number; resumedAfterMs: number }[] = [];
  const faults = (async () => {
    for (const at of [FIRST_RESTART_AT_MS, SECOND_RESTART_AT_MS]) {
      await sleep(at - (performance.now() - began));
      const tookMs = await postgres.restart();
      const back = performance.now();
      const seen = submitTimes.length;
      // Resumed: the SMSC receives a message submitted after the server came back.
      await waitFor(() => {
        for (const p of [api, worker]) if (p.exit !== undefined) throw new Error(`the ${p.role} process died (${JSON.stringify(p.exit)}):\n${p.output().slice(-3000)}`);
        return submitTimes.length > seen ? true : undefined;
      }, 'delivery to resume after a restart', 30_000);
      restarts.push({ tookMs, resumedAfterMs: Math.round(submitTimes[seen]! - back) });
    }
    await sleep(REDIS_KILL_AT_MS - (performance.now() - began));
    await redis.kill();
    await sleep(REDIS_START_AT_MS - (performance.now() - began));
    await redis.start();
  })();
  const inFlight = new Set<Promise<unknown>>();
  for (let i = 0; performance.now() - began < LOAD_MS; i++) {
    const sending = send().finally(() => inFlight.delete(sending));
    inFlight.add(sending);
    // A steady rate, whatever the answers take; bounded in flight.
    await sleep(Math.max(0, began + ((i + 1) * 1000) / RATE_PER_SECOND - performance.now()));
    if (inFlight.size >= 200) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  await faults;
  const sentDuringLoad = next;

  await waitFor(() => {
    const received = receivedBy();
    return accepted.every((n) => received.has(n)) ? true : undefined;
  }, `every accepted message at the SMSC (${accepted.length} accepted)`, 60_000).catch(async (error: unknown) => {
    throw new Error(`${(error as Error).message}; ${receivedBy().size} received\nworker:\n${worker.output().slice(-4000)}\n${await cluster.activity()}`);
  });
  const alive = (p: HeraldProcess): boolean => p.exit === undefined;
  assert.deepStrictEqual({ api: alive(api), worker: alive(worker) }, { api: true, worker: true },
    `a process died:\napi:\n${api.output().slice(-3000)}\nworker:\n${worker.output().slice(-3000)}`);

  // ---- Fast takeover ----
  // The link frozen: the worker claims and submits, and nothing reaches the SMSC.
  link.freeze();
  const workerRow = await cluster.db.selectFrom('processes').select('id').where('pid', '=', worker.pid).where('role', '=', 'worker').executeTakeFirstOrThrow();
  const held: string[] = [];
  for (let i = 0; i < HELD_AT_KILL; i++) {
    const number = await send();
    if (number !== undefined) held.push(number);
  }
  assert.equal(held.length, HELD_AT_KILL);
  await waitFor(async () => {
    const row = await cluster.db.selectFrom('outbox').select(cluster.db.fn.countAll<number>().as('n')).where('lease_owner', '=', workerRow.id).executeTakeFirstOrThrow();
    return Number(row.n) === HELD_AT_KILL ? true : undefined;
  }, `the worker to hold ${HELD_AT_KILL} claimed messages`, 20_000);
  const receivedBeforeKill = smsc.submits.length;
  await worker.kill('SIGKILL');
  const killedAt = performance.now();
  // Whatever the dead worker wrote into the link is dropped with it.
  link.cut();
  link.restore();
  link.thaw();
  const successor = await cluster.startWorker();
  const startedInMs = Math.round(performance.now() - killedAt);
  await waitFor(() => {
    const received = receivedBy();
    return held.every((n) => received.has(n)) ? true : undefined;
  }, 'the killed worker\'s messages at the SMSC', 60_000);
  const takeoverMs = Math.round(performance.now() - killedAt);
  assert.equal(receivedBeforeKill, accepted.length - HELD_AT_KILL, 'a held message reached the SMSC before the kill');

  // ---- Every accepted message once, nothing else; the ledger exact ----
  const received = receivedBy();
  const duplicates = [...received.values()].filter((count) => count > 1).length;
  const unexpected = [...received.keys()].filter((n) => !accepted.includes(n));
  assert.deepStrictEqual({ received: received.size, duplicates, unexpected }, { received: accepted.length, duplicates: 0, unexpected: [] });
  assert.equal(await messagesLeftOf(api, account.id), CREDIT - accepted.length);
  assert.deepStrictEqual(ledgerByReason(await ledgerOf(api, account.id)), {
    'account.open': { entries: 1, messages: CREDIT, balance: 0 },
    'sms.send': { entries: accepted.length, messages: -accepted.length, balance: 0 },
  });
  assert.deepStrictEqual({ api: alive(api), successor: alive(successor) }, { api: true, successor: true });
  assert.ok(takeoverMs < TAKEOVER_LIMIT_MS, `takeover took ${takeoverMs} ms (limit ${TAKEOVER_LIMIT_MS} ms)`);

  t.diagnostic(`load: ${sentDuringLoad} SMS posted at ${RATE_PER_SECOND}/s over ${LOAD_MS / 1000} s, ${accepted.length - HELD_AT_KILL} accepted, refused ${JSON.stringify(Object.fromEntries(refused))}`);
  for (const [i, r] of restarts.entries()) t.diagnostic(`PostgreSQL restart ${i + 1}: pg_ctl restart took ${r.tookMs} ms; first delivery ${r.resumedAfterMs} ms after it`);
  t.diagnostic(`Redis killed for ${(REDIS_START_AT_MS - REDIS_KILL_AT_MS) / 1000} s; both processes alive; ${received.size} messages at the SMSC, 0 duplicates, ledger exact`);
  t.diagnostic(`takeover: worker SIGKILLed holding ${HELD_AT_KILL} claimed messages; successor ready after ${startedInMs} ms; all ${HELD_AT_KILL} at the SMSC ${takeoverMs} ms after the kill`);
});
