import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { uuidv7 } from '../../../src/app/uuidv7-source.ts';
import type { Outcome, Transport } from '../../../src/channels/channel.ts';
import { claimDue } from '../../../src/queue/outbox/claim.ts';
import { recordOutcome } from '../../../src/queue/outbox/complete.ts';
import { OutboxWorker, type Transports } from '../../../src/queue/outbox/worker.ts';
import { findAccount } from '../../../src/store/accounts.ts';
import { listLedger } from '../../../src/store/ledger.ts';
import type { Service } from '../../../src/service.ts';
import type { Committer } from '../../../src/store/group-commit.ts';
import { emailBody, get, openAccount, post, startService } from '../../support/service.ts';

const HOUR = 3_600_000;

/** A peer stand-in that answers every message with the same outcome and counts calls. */
function answering(outcome: Outcome): Transport<never> & { calls: number } {
  const transport = {
    name: 'stand-in',
    calls: 0,
    async send(): Promise<Outcome> {
      transport.calls += 1;
      return outcome;
    },
  };
  return transport;
}

function workerWith(service: Service, transport: Transport<never>, clock: () => number, owner = 'test-worker'): OutboxWorker {
  const transports = { email: transport, sms: transport, whatsapp: transport } as unknown as Transports;
  return new OutboxWorker(
    { db: service.store.db, clock, newId: uuidv7, random: () => 0.5, capabilities: service.store.capabilities, transports, logger: pino({ level: 'silent' }) },
    { owner, batchSize: 10, concurrency: 10, leaseMs: 60_000, pollMs: 50 },
  );
}

async function acceptOneEmail(t: TestContext, now: { value: number }) {
  const service = await startService(t, { clock: () => now.value });
  const account = await openAccount(service, { messagesLeft: 10 });
  const res = await post(service, '/v1/email', account.apiKey, emailBody());
  assert.equal(res.statusCode, 200);
  const msgid: string = res.json().to[0].msgid;
  return { service, account, msgid };
}

async function outboxRow(service: Service, msgid: string) {
  return service.store.db.selectFrom('outbox').selectAll().where('message_id', '=', msgid).executeTakeFirst();
}

test('a deferred message keeps its outbox row and is due again after the backoff', async (t) => {
  const now = { value: Date.UTC(2026, 0, 1) };
  const { service, account, msgid } = await acceptOneEmail(t, now);
  const worker = workerWith(service, answering({ kind: 'deferred', peer: 'mx.example.org', response: '451 4.7.1 try later' }), () => now.value);

  assert.equal(await worker.drain(), 1);

  const row = await outboxRow(service, msgid);
  // attempt 1, jitter at its midpoint: exactly 30 s
  assert.equal(Number(row?.available_at), now.value + 30_000);
  assert.equal(row?.lease_owner, null);
  const view = (await get(service, `/v1/messages/${msgid}`, account.apiKey)).json();
  assert.equal(view.status, 'deferred');
  assert.deepStrictEqual(view.events.at(-1), { type: 'deferred', at: new Date(now.value).toISOString(), attempt: 1, peer: 'mx.example.org', response: '451 4.7.1 try later' });
});

test('a message that fails without leaving the service is refunded once, in the ledger', async (t) => {
  const now = { value: Date.UTC(2026, 0, 1) };
  const { service, account, msgid } = await acceptOneEmail(t, now);
  const worker = workerWith(service, answering({ kind: 'failed', peer: 'capture', response: 'attachment a.pdf: HTTP 404', leftTheHouse: false }), () => now.value);

  await worker.drain();
  await worker.drain();

  assert.equal((await findAccount(service.store.db, account.id))?.messagesLeft, 10);
  const ledger = await listLedger(service.store.db, account.id);
  assert.deepStrictEqual(ledger.map((e) => [e.reason, e.messagesDelta]), [['account.open', 10], ['email.send', -1], ['refund', 1]]);
  assert.equal((await get(service, `/v1/messages/${msgid}`, account.apiKey)).json().status, 'failed');
  assert.equal(await outboxRow(service, msgid), undefined);
});

test('a message that failed after reaching the peer is not refunded', async (t) => {
  const now = { value: Date.UTC(2026, 0, 1) };
  const { service, account } = await acceptOneEmail(t, now);
  const worker = workerWith(service, answering({ kind: 'failed', peer: 'mx.example.org', response: '550 5.1.1 no such user', leftTheHouse: true }), () => now.value);

  await worker.drain();

  assert.equal((await findAccount(service.store.db, account.id))?.messagesLeft, 9);
});

test('a message still deferred after the 72-hour email horizon fails and is refunded', async (t) => {
  const now = { value: Date.UTC(2026, 0, 1) };
  const { service, account, msgid } = await acceptOneEmail(t, now);
  const worker = workerWith(service, answering({ kind: 'deferred', peer: 'mx.example.org', response: '421 busy' }), () => now.value);
  now.value += 72 * HOUR;

  await worker.drain();

  assert.equal((await get(service, `/v1/messages/${msgid}`, account.apiKey)).json().status, 'failed');
  assert.equal((await findAccount(service.store.db, account.id))?.messagesLeft, 10);
});

test('a dead worker\'s lease is taken over when it expires, and its late outcome is not recorded', async (t) => {
  const now = { value: Date.UTC(2026, 0, 1) };
  const { service, account, msgid } = await acceptOneEmail(t, now);
  const [claimedByDead] = await claimDue(service.store.db, service.store.capabilities, { owner: 'dead-worker', now: now.value, leaseMs: 60_000, limit: 10, channel: 'email' }, uuidv7);
  assert.equal(claimedByDead?.msgid, msgid);

  const peer = answering({ kind: 'accepted', peer: 'capture', response: 'ok' });
  const successor = workerWith(service, peer, () => now.value);
  assert.equal(await successor.drain(), 0, 'the lease still holds');
  now.value += 60_000;
  assert.equal(await successor.drain(), 1);
  assert.equal(peer.calls, 1);

  const late = await recordOutcome({ db: service.store.db, clock: () => now.value, newId: uuidv7 }, 'dead-worker', claimedByDead!, { kind: 'failed', peer: 'x', response: 'late', leftTheHouse: false });
  assert.equal(late, 'lease-lost');
  const view = (await get(service, `/v1/messages/${msgid}`, account.apiKey)).json();
  assert.equal(view.status, 'sent');
  // The dead worker's claim and the successor's each marked an attempt; only the successor's outcome counts.
  const iso = (ms: number): string => new Date(ms).toISOString();
  assert.deepStrictEqual(view.events, [
    { type: 'queued', at: iso(now.value - 60_000) },
    { type: 'sending', at: iso(now.value - 60_000), attempt: 1 },
    { type: 'sending', at: iso(now.value), attempt: 2 },
    { type: 'sent', at: iso(now.value), attempt: 2, peer: 'capture', response: 'ok' },
  ]);
  assert.equal((await findAccount(service.store.db, account.id))?.messagesLeft, 9);
});

test('a message in flight shows its running attempt as `sending`, from its claim, until the outcome takes the step over', async (t) => {
  const now = { value: Date.UTC(2026, 0, 1) };
  const { service, account, msgid } = await acceptOneEmail(t, now);
  const iso = (ms: number): string => new Date(ms).toISOString();
  const accepted = now.value;
  now.value += 1_000;
  const [claimed] = await claimDue(service.store.db, service.store.capabilities, { owner: 'w', now: now.value, leaseMs: 60_000, limit: 10, channel: 'email' }, uuidv7);
  const inFlight = (await get(service, `/v1/messages/${msgid}`, account.apiKey)).json();
  assert.equal(inFlight.status, 'sending');
  assert.deepStrictEqual(inFlight.events, [{ type: 'queued', at: iso(accepted) }, { type: 'sending', at: iso(now.value), attempt: 1 }]);

  now.value += 2_000;
  assert.equal(await recordOutcome({ db: service.store.db, clock: () => now.value, newId: uuidv7 }, 'w', claimed!, { kind: 'deferred', peer: 'mx', response: '451 later' }), 'retry');
  const deferred = (await get(service, `/v1/messages/${msgid}`, account.apiKey)).json();
  assert.deepStrictEqual(deferred.events, [
    { type: 'queued', at: iso(accepted) },
    { type: 'sending', at: iso(now.value - 2_000), attempt: 1 },
    { type: 'deferred', at: iso(now.value), attempt: 1, peer: 'mx', response: '451 later' },
  ]);
  // A retried attempt's claim is cleared with its outcome: the next claim hands on no abandoned step.
  assert.equal((await outboxRow(service, msgid))?.claimed_at, null);
});

test('the running worker delivers a new message at once, woken by the commit', async (t) => {
  const service = await startService(t, { worker: true, workerOptions: { pollMs: 60_000 } });
  const account = await openAccount(service);
  const msgid: string = (await post(service, '/v1/email', account.apiKey, emailBody())).json().to[0].msgid;

  let status = '';
  for (let i = 0; i < 100 && status !== 'sent'; i++) {
    status = (await get(service, `/v1/messages/${msgid}`, account.apiKey)).json().status;
    if (status !== 'sent') await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(status, 'sent');
});

test('HERALD_EMAIL_RETRY_HOURS shortens the email horizon: a message still deferred after it fails', async (t) => {
  const now = { value: Date.UTC(2026, 0, 1) };
  const service = await startService(t, { clock: () => now.value, env: { HERALD_EMAIL_RETRY_HOURS: '2', HERALD_EMAIL_TRANSPORT: 'smtp://127.0.0.1:9' } });
  const account = await openAccount(service, { messagesLeft: 10 });
  const msgid: string = (await post(service, '/v1/email', account.apiKey, emailBody())).json().to[0].msgid;
  now.value += 2 * HOUR;

  await service.worker.drain(); // port 9 (discard) refuses: a transient failure, past the horizon

  assert.equal((await get(service, `/v1/messages/${msgid}`, account.apiKey)).json().status, 'failed');
});

test('a worker given a committer claims and records every outcome as a unit of it (on SQLite: grouped commits)', async (t) => {
  const now = { value: Date.UTC(2026, 0, 1) };
  const service = await startService(t, { clock: () => now.value });
  const account = await openAccount(service, { messagesLeft: 10 });
  const msgids: string[] = [];
  for (let i = 0; i < 3; i += 1) msgids.push((await post(service, '/v1/email', account.apiKey, emailBody())).json().to[0].msgid);
  let units = 0;
  const counting: Committer = { run: (work) => { units += 1; return service.deps.commit.run(work); } };
  const transport = answering({ kind: 'accepted', peer: 'mx.example.org', response: '250 ok' });
  const transports = { email: transport, sms: transport, whatsapp: transport } as unknown as Transports;
  const worker = new OutboxWorker(
    { db: service.store.db, commit: counting, clock: () => now.value, newId: uuidv7, capabilities: service.store.capabilities, transports, logger: pino({ level: 'silent' }) },
    { owner: 'test-worker', batchSize: 10, concurrency: 10, leaseMs: 60_000, pollMs: 50 },
  );

  assert.equal(await worker.drain(), 3);

  // A claim per channel (email's takes the three), one unit per outcome, then a last, empty claim per channel.
  assert.equal(units, 3 + 3 + 3);
  for (const msgid of msgids) assert.equal((await get(service, `/v1/messages/${msgid}`, account.apiKey)).json().status, 'sent');
  assert.equal(await outboxRow(service, msgids[0]!), undefined);
});
