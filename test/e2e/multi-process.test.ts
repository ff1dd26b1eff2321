// Scale-out, end to end, with herald processes started as an operator starts them
// (`serve --role api|worker`) on one PostgreSQL schema and one Redis:
//  - metering and the per-account rate limit hold across two API processes;
//  - 5,000 emails posted through two API processes while two workers deliver them to a
//    real SMTP peer, one worker SIGKILLed halfway: nothing lost, nothing billed twice.
// One file, so that its tests run one after the other: the timing of the rate-limit test
// must not share the CPU with the 5,000 emails. Needs TEST_POSTGRES_URL and TEST_REDIS_URL
// (`.ci/run` sets them); skipped, saying so, without. test/run-postgres.ts does not run
// this file a second time (it leaves out files that call startCluster).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_WORKER_OPTIONS } from '../../src/queue/outbox/worker.ts';
import { startSmtpSink } from '../peers/smtp-sink.ts';
import type { HeraldProcess } from '../support/herald-process.ts';
import { ledgerByReason, ledgerOf, messagesLeftOf, openAccountByAdmin, sendEmail, skipWithoutServers, startCluster, type Cluster } from '../support/multi-process.ts';
import { msgidOfMailFrom } from '../support/verp.ts';

const NO_MESSAGES_LEFT = { message: 'No messages left, please buy more messages' };
const RATE_LIMITED = { success: false, message: 'Ha excedido el límite de peticiones permitidas por segundo.', error: 'RATE_LIMIT_EXCEEDED' };

/** How many responses had each status. */
function tally(responses: readonly { status: number }[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of responses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

describe('two API processes on one PostgreSQL and one Redis', { skip: skipWithoutServers, timeout: 120_000 }, () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startCluster({ apis: 2, workers: [], redisFailure: 'closed' });
    // A first request per process is slow (cold caches, a first Redis round trip); measured ones must not be.
    const warmUp = await openAccountByAdmin(cluster.apis[0]!, { messagesLeft: 10, rateLimitPerSecond: 1000 });
    for (const api of cluster.apis) assert.equal((await sendEmail(api, warmUp.apiKey, 'warm@example.org')).status, 200);
  });
  after(() => cluster?.stop());

  /** The API process for the i-th request: alternating. */
  const apiFor = (i: number) => cluster.apis[i % cluster.apis.length]!;

  test('200 simultaneous one-recipient emails on 50 messages left: exactly 50 get 200, 150 get 401, the account ends at 0 and its ledger agrees', async () => {
    const account = await openAccountByAdmin(cluster.apis[0]!, { messagesLeft: 50, rateLimitPerSecond: 100_000 });

    const responses = await Promise.all(Array.from({ length: 200 }, async (_, i) => {
      const res = await sendEmail(apiFor(i), account.apiKey, `user${i}@example.org`);
      return { status: res.status, body: (await res.json()) as { to?: [{ msgid: string }] } };
    }));

    assert.deepStrictEqual(tally(responses), { 200: 50, 401: 150 });
    const ok = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status === 401);
    for (const r of refused) assert.deepStrictEqual(r.body, NO_MESSAGES_LEFT);
    const msgids = new Set(ok.map((r) => r.body.to?.[0].msgid));
    assert.equal(msgids.size, 50);

    assert.equal(await messagesLeftOf(cluster.apis[1]!, account.id), 0);
    assert.deepStrictEqual(ledgerByReason(await ledgerOf(cluster.apis[1]!, account.id)), {
      'account.open': { entries: 1, messages: 50, balance: 0 },
      'email.send': { entries: 50, messages: -50, balance: 0 },
    });
    const stored = await cluster.db.selectFrom('messages').select('id').where('account_id', '=', account.id).execute();
    assert.deepStrictEqual(new Set(stored.map((m) => m.id)), msgids);
  });

  test('at 2 per second, 10 simultaneous requests spread over both processes let 2 through, and the next second lets 2 more', async () => {
    const account = await openAccountByAdmin(cluster.apis[0]!, { messagesLeft: 100, rateLimitPerSecond: 2 });

    const burst = await Promise.all(Array.from({ length: 10 }, async (_, i) => {
      const res = await sendEmail(apiFor(i), account.apiKey, `user${i}@example.org`);
      return { status: res.status, body: (await res.json()) as unknown, retryAfter: res.headers.get('retry-after') };
    }));
    assert.deepStrictEqual(tally(burst), { 200: 2, 429: 8 });
    for (const r of burst.filter((r) => r.status === 429)) {
      assert.deepStrictEqual(r.body, RATE_LIMITED);
      assert.equal(r.retryAfter, '1');
    }

    // The window is one second from the burst's first request.
    await sleep(1100);
    const nextSecond = await Promise.all([0, 1].map((i) => sendEmail(apiFor(i), account.apiKey, `later${i}@example.org`)));
    assert.deepStrictEqual(nextSecond.map((r) => r.status), [200, 200]);
    assert.equal(await messagesLeftOf(cluster.apis[0]!, account.id), 96);
  });
});

const MESSAGES = 5000;
const CREDIT = 6000;
const CLIENTS = 32;
/**
 * The lease of the worker that is killed: what it held is taken over this long after
 * it claimed it. The other worker keeps the default (5 minutes), so an outbox row
 * leased for 5 seconds is the doomed worker's and no other.
 */
const DOOMED_LEASE_SECONDS = 5;
/** The doomed worker is killed once it holds at least this many claimed messages, so the take-over has something to take. */
const HELD_AT_KILL = 3;

/** The msgid of a VERP envelope sender `b+<msgid>@<bounce domain>`. */

async function waitFor(check: () => boolean | Promise<boolean>, what: string, signal: AbortSignal, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (signal.aborted) throw new Error(`gave up waiting for ${what}: the test ended`);
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

test('5,000 emails through two API processes and two workers, one worker SIGKILLed halfway: every message reaches the peer, billed once', { skip: skipWithoutServers, timeout: 300_000 }, async (t) => {
  const began = Date.now();
  const ended = new AbortController();
  t.after(() => ended.abort());
  // A relay without STARTTLS: the relay transport rightly refuses the sink's expired certificate.
  const sink = await startSmtpSink({ starttls: false });
  t.after(() => sink.close());
  const cluster = await startCluster({
    apis: 2,
    workerEnv: { HERALD_EMAIL_TRANSPORT: `smtp://${sink.host}:${sink.port}` },
    workers: [{ HERALD_OUTBOX_LEASE_SECONDS: String(DOOMED_LEASE_SECONDS) }, {}],
  });
  t.after(() => cluster.stop());
  const [apiA, apiB] = cluster.apis as [HeraldProcess, HeraldProcess];
  const [doomed, survivor] = cluster.workers as [HeraldProcess, HeraldProcess];
  const startedIn = Date.now() - began;

  const account = await openAccountByAdmin(apiA, { messagesLeft: CREDIT, rateLimitPerSecond: 100_000 });

  // What the peer has received, by msgid (the VERP envelope sender), counted as it arrives.
  const received = new Map<string, number>();
  let scanned = 0;
  const receivedCount = (): number => {
    for (; scanned < sink.messages.length; scanned++) {
      const msgid = msgidOfMailFrom(sink.messages[scanned]!.mailFrom);
      received.set(msgid, (received.get(msgid) ?? 0) + 1);
    }
    return received.size;
  };

  // 32 clients, each posting its next email as soon as its last one is answered, alternating between the APIs.
  const accepted: string[] = [];
  const refusals: string[] = [];
  let next = 0;
  const postingBegan = Date.now();
  const client = async (): Promise<void> => {
    for (let i = next++; i < MESSAGES; i = next++) {
      const res = await sendEmail(i % 2 === 0 ? apiA : apiB, account.apiKey, `r${i}@example.org`);
      if (res.status === 200) accepted.push(((await res.json()) as { to: [{ msgid: string }] }).to[0].msgid);
      else refusals.push(`email ${i}: ${res.status} ${await res.text()}`);
    }
  };
  const posting = Promise.all(Array.from({ length: CLIENTS }, client)).then(() => Date.now() - postingBegan);

  // Halfway, the doomed worker is frozen (SIGSTOP) and its claims read; it is killed
  // while it holds some, else let go on and tried again a moment later.
  const heldByDoomed = async (now: number): Promise<string[]> => (await cluster.db.selectFrom('outbox').select('message_id')
    .where('lease_expires_at', '>', now).where('lease_expires_at', '<=', now + DOOMED_LEASE_SECONDS * 1000).execute()).map((row) => row.message_id);
  let heldAtKill: string[] = [];
  let killedAt = 0;
  const killing = (async () => {
    await waitFor(async () => {
      if (refusals.length > 0) return true; // the assertion below says why
      if (receivedCount() < MESSAGES / 2) return false;
      doomed.signal('SIGSTOP');
      heldAtKill = await heldByDoomed(Date.now());
      if (heldAtKill.length >= HELD_AT_KILL) return true;
      doomed.signal('SIGCONT');
      return false;
    }, `half of the emails to reach the peer while the doomed worker holds ${HELD_AT_KILL} claims`, ended.signal, 180_000);
    await doomed.kill('SIGKILL');
    killedAt = Date.now();
    // A claim the worker sent just before it was stopped is still run by PostgreSQL after the
    // read above: read again once such a statement has landed (its 5 s lease is still running).
    await sleep(500);
    heldAtKill = [...new Set([...heldAtKill, ...await heldByDoomed(Date.now())])];
    return receivedCount();
  })();
  const [postingMs, receivedAtKill] = await Promise.all([posting, killing]);

  assert.deepStrictEqual(refusals.slice(0, 5), [], `every email was accepted with 200 (${refusals.length} were not; the first shown)`);
  assert.equal(new Set(accepted).size, MESSAGES);

  const outboxRows = async (): Promise<number> => Number((await cluster.db.selectFrom('outbox').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  await waitFor(async () => receivedCount() >= MESSAGES && (await outboxRows()) === 0, 'every email to reach the peer and leave the outbox', ended.signal, 120_000)
    .catch(async (error: Error) => {
      // What is stuck, and where: leases (a 5-second one is the dead worker's), the store's connections, the survivor's log.
      const left = await cluster.db.selectFrom('outbox').selectAll().limit(10).execute();
      throw new Error(`${error.message}; ${receivedCount()} received, ${await outboxRows()} in the outbox, e.g. ${JSON.stringify(left)} (now ${Date.now()}, killed ${killedAt});\n${await cluster.activity()}\nthe survivor's log ends:\n${survivor.output().slice(-4000)}`);
    });
  const finishedMs = Date.now() - postingBegan;

  const acceptedIds = new Set(accepted);
  const unknown = [...received.keys()].filter((msgid) => !acceptedIds.has(msgid));
  assert.deepStrictEqual(unknown, [], 'the peer received only accepted emails');
  const missing = accepted.filter((msgid) => !received.has(msgid));
  assert.deepStrictEqual(missing, [], 'every accepted email reached the peer');

  // Claimed a second time: what the dead worker held, taken over once its lease expired. Only
  // a claim that ended without an outcome leaves a `sending` row (outbox/claim.ts): the
  // next claim writes it; every other attempt's step rides on its outcome's event.
  const takenOver = (await cluster.db.selectFrom('message_events').select('message_id').where('type', '=', 'sending')
    .groupBy('message_id').execute()).map((row) => row.message_id);
  const duplicates = [...received].filter(([, times]) => times > 1);
  t.diagnostic(`processes up in ${startedIn} ms; ${MESSAGES} emails posted in ${postingMs} ms (${Math.round(MESSAGES / (postingMs / 1000))}/s over ${CLIENTS} clients)`);
  t.diagnostic(`doomed worker killed holding ${heldAtKill.length} claims, with ${receivedAtKill} emails received; all received and recorded ${finishedMs} ms after posting began, ${Date.now() - killedAt} ms after the kill (lease ${DOOMED_LEASE_SECONDS} s)`);
  t.diagnostic(`taken over: ${takenOver.length}; duplicate deliveries: ${duplicates.length}${duplicates.length > 0 ? ` (${duplicates.map(([msgid, times]) => `${msgid} ×${times}`).join(', ')})` : ''}`);
  const held = new Set(heldAtKill);
  assert.ok(takenOver.length >= 1, 'the survivor took over what the dead worker held');
  assert.deepStrictEqual(takenOver.filter((msgid) => !held.has(msgid)), [], 'only messages the dead worker held were claimed twice');
  // At-least-once toward the peer: a message the peer took the instant before the kill is sent again, once.
  assert.deepStrictEqual(duplicates.filter(([msgid, times]) => times !== 2 || !held.has(msgid)), [], 'a duplicate is a message the dead worker held, sent twice');
  assert.ok(duplicates.length <= DEFAULT_WORKER_OPTIONS.concurrency, `duplicates (${duplicates.length}) at most the dead worker's ${DEFAULT_WORKER_OPTIONS.concurrency} delivery slots`);

  assert.equal(await messagesLeftOf(apiB, account.id), CREDIT - MESSAGES);
  assert.deepStrictEqual(ledgerByReason(await ledgerOf(apiB, account.id)), {
    'account.open': { entries: 1, messages: CREDIT, balance: 0 },
    'email.send': { entries: MESSAGES, messages: -MESSAGES, balance: 0 },
  });
  const statuses = await cluster.db.selectFrom('messages').select(['status', (eb) => eb.fn.countAll().as('n')]).groupBy('status').execute();
  assert.deepStrictEqual(statuses.map(({ status, n }) => ({ status, n: Number(n) })), [{ status: 'sent', n: MESSAGES }]);
  assert.equal(await outboxRows(), 0);

  assert.equal(doomed.exit?.signal, 'SIGKILL');
  for (const process of [apiA, apiB, survivor]) assert.equal(process.exit, undefined, `${process.role} ${process.pid} kept running:\n${process.output()}`);
  t.diagnostic(`wall time ${Date.now() - began} ms`);
});
