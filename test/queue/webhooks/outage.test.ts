// A receiver that is down, or answers errors, for hours. Time is Date.now mocked by
// node:test and advanced by hand: the service's clock, the signature timestamps and
// the receiver's own check of them (Webhook.verify compares with Date.now) all move
// together, and nothing waits for real.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { uuidv7 } from '../../../src/app/uuidv7-source.ts';
import type { Service } from '../../../src/service.ts';
import { recordEvent } from '../../../src/store/messages.ts';
import { call, startWebhookReceiver, subscribe } from '../../peers/webhook-receiver.ts';
import { openAccount, post, smsBody, startService, type TestAccount } from '../../support/service.ts';

const T0 = Date.UTC(2030, 0, 1);
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/** When attempts 1 to 8 fall due when every one before failed: the published schedule, added up. */
const SLOTS = [0, 5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR].reduce<number[]>(
  (slots, delay) => [...slots, (slots.at(-1) ?? T0) + delay], [],
);
const iso = (ms: number): string => new Date(ms).toISOString();

interface Attempt { at: string; status_code: number | null; error: string | null }

/** A service whose clock is the mocked Date.now, starting at T0. */
async function serviceAtT0(t: TestContext, env: Record<string, string> = {}): Promise<Service> {
  t.mock.timers.enable({ apis: ['Date'], now: T0 });
  return startService(t, { env });
}

/** An SMS accepted and handed to the capture transport at T0: its `sms.sent` is queued for the webhook. */
async function sentSms(service: Service, account: TestAccount, number: string): Promise<string> {
  const msgid = (await post(service, '/v1/sms/send', account.apiKey, smsBody({ mobile_numbers: [number] }))).json().messages[0].msgid as string;
  await service.worker.drain();
  return msgid;
}

async function markDelivered(service: Service, msgid: string): Promise<void> {
  await service.deps.db.transaction().execute((tx) =>
    recordEvent(tx, { messageId: msgid, status: 'delivered', eventId: uuidv7(), at: Date.now(), data: { peer: 'smsc', response: 'stat:DELIVRD err:000' } }));
}

async function deliveriesOf(service: Service, account: TestAccount, msgid: string): Promise<{ id: string; type: string; status: string }[]> {
  return (await call(service, 'GET', `/v1/webhooks/deliveries?msgid=${msgid}`, account.apiKey)).json().data;
}

async function attemptsOf(service: Service, account: TestAccount, deliveryId: string): Promise<{ status: string; attempt_count: number; last_error: string | null; attempts: Attempt[] }> {
  return (await call(service, 'GET', `/v1/webhooks/deliveries/${deliveryId}`, account.apiKey)).json();
}

test('a receiver down for hours gets every event once it is back, each message\'s in order, every attempt exactly on the schedule', async (t) => {
  const service = await serviceAtT0(t);
  const receiver = await startWebhookReceiver(t);
  const account = await openAccount(service);
  await subscribe(service, account.apiKey, receiver);
  await receiver.down();

  const ana = await sentSms(service, account, '+5215512345678');
  const ben = await sentSms(service, account, '+5215587654321');
  assert.equal(await service.webhooks.drain(), 2); // attempt 1 of both sms.sent, refused
  t.mock.timers.setTime(T0 + SECOND);
  await markDelivered(service, ana);
  await markDelivered(service, ben);
  // The delivered events wait behind their message's sent, which waits for its slot.
  assert.equal(await service.webhooks.drain(), 0);

  for (const [index, slot] of SLOTS.slice(1, 6).entries()) {
    t.mock.timers.setTime(slot - 1);
    assert.equal(await service.webhooks.drain(), 0, `nothing is due a millisecond before attempt ${index + 2}`);
    t.mock.timers.setTime(slot);
    assert.equal(await service.webhooks.drain(), 2, `attempt ${index + 2} of both sent events`);
  }
  assert.equal(receiver.received.length, 0);

  await receiver.up(); // back after 7 h 35 min 5 s of silence
  t.mock.timers.setTime(SLOTS[6] ?? 0);
  assert.equal(await service.webhooks.drain(), 4); // attempt 7 of each sent, then each delivered for the first time

  assert.deepStrictEqual(receiver.rejected, []);
  for (const msgid of [ana, ben]) {
    assert.deepStrictEqual(receiver.received.filter((e) => e.payload.data.msgid === msgid).map((e) => e.payload.type), ['sms.sent', 'sms.delivered']);
  }
  assert.equal(receiver.received.length, 4);
  const [sent, delivered] = await deliveriesOf(service, account, ana).then((list) => [...list].reverse());
  const sentLog = await attemptsOf(service, account, sent?.id ?? '');
  assert.deepStrictEqual(sentLog.attempts.map((a) => a.at), SLOTS.slice(0, 7).map(iso));
  assert.deepStrictEqual(sentLog.attempts.map((a) => a.status_code), [null, null, null, null, null, null, 200]);
  for (const attempt of sentLog.attempts.slice(0, 6)) assert.match(attempt.error ?? '', /^connection to 127\.0\.0\.1:\d+ failed: ECONNREFUSED$/);
  assert.deepStrictEqual([sentLog.status, sentLog.attempt_count], ['succeeded', 7]);
  const deliveredLog = await attemptsOf(service, account, delivered?.id ?? '');
  assert.deepStrictEqual(deliveredLog.attempts.map((a) => [a.at, a.status_code]), [[iso(SLOTS[6] ?? 0), 200]]);
  // Receivers see the time of each attempt in webhook-timestamp.
  assert.deepStrictEqual(receiver.received.map((e) => e.timestamp), receiver.received.map(() => (SLOTS[6] ?? 0) / 1000));
});

test('after the eighth failed attempt a delivery is failed and kept; a retry by hand delivers it, ahead of its message\'s later event', async (t) => {
  const service = await serviceAtT0(t);
  const receiver = await startWebhookReceiver(t);
  const account = await openAccount(service);
  await subscribe(service, account.apiKey, receiver);
  await receiver.down();
  const msgid = await sentSms(service, account, '+5215512345678');
  t.mock.timers.setTime(T0 + SECOND);
  await markDelivered(service, msgid);

  for (const slot of SLOTS) {
    t.mock.timers.setTime(slot);
    await service.webhooks.drain();
  }
  const [sentId, deliveredId] = (await deliveriesOf(service, account, msgid)).map((d) => d.id).reverse();
  const failed = await attemptsOf(service, account, sentId ?? '');
  assert.deepStrictEqual([failed.status, failed.attempt_count, failed.attempts.length], ['failed', 8, 8]);
  assert.deepStrictEqual(failed.attempts.map((a) => a.at), SLOTS.map(iso));
  assert.match(failed.last_error ?? '', /ECONNREFUSED/);
  const listed = (await call(service, 'GET', '/v1/webhooks/deliveries?status=failed', account.apiKey)).json();
  assert.deepStrictEqual(listed.data.map((d: { id: string }) => d.id), [sentId]);
  // The failed event holds the queue no more: the later one got its first attempt (refused too).
  const waiting = await attemptsOf(service, account, deliveredId ?? '');
  assert.deepStrictEqual([waiting.status, waiting.attempts.map((a) => a.at)], ['pending', [iso(SLOTS[7] ?? 0)]]);

  await receiver.up();
  const retried = await call(service, 'POST', `/v1/webhooks/deliveries/${sentId}/retry`, account.apiKey);
  assert.equal(retried.statusCode, 202);
  assert.deepStrictEqual([retried.json().status, retried.json().next_attempt_at], ['pending', iso(SLOTS[7] ?? 0)]);
  assert.equal(await service.webhooks.drain(), 1); // the replay; the later event keeps its slot
  t.mock.timers.setTime((SLOTS[7] ?? 0) + 5 * SECOND);
  assert.equal(await service.webhooks.drain(), 1);

  assert.deepStrictEqual(receiver.received.map((e) => [e.id, e.payload.type]), [[sentId, 'sms.sent'], [deliveredId, 'sms.delivered']]);
  const replayed = await attemptsOf(service, account, sentId ?? '');
  assert.deepStrictEqual([replayed.status, replayed.attempt_count, replayed.attempts.at(-1)?.status_code], ['succeeded', 9, 200]);
});

test('a receiver answering 500 is retried on the schedule with the same id and body, and its answer is logged', async (t) => {
  const service = await serviceAtT0(t);
  const receiver = await startWebhookReceiver(t);
  const account = await openAccount(service);
  await subscribe(service, account.apiKey, receiver);
  receiver.answerWith(500);
  const msgid = await sentSms(service, account, '+5215512345678');
  await service.webhooks.drain();
  receiver.answerWith(204);
  t.mock.timers.setTime(T0 + 5 * SECOND);
  await service.webhooks.drain();

  const [first] = receiver.refused;
  const [second] = receiver.received;
  assert.deepStrictEqual([second?.id, second?.body], [first?.id, first?.body]);
  assert.deepStrictEqual([first?.timestamp, second?.timestamp], [T0 / 1000, T0 / 1000 + 5]);
  const [delivery] = await deliveriesOf(service, account, msgid);
  const log = await attemptsOf(service, account, delivery?.id ?? '');
  assert.deepStrictEqual(log.attempts.map((a) => [a.at, a.status_code, a.error]), [
    [iso(T0), 500, 'HTTP 500: receiver says no'],
    [iso(T0 + 5 * SECOND), 204, null],
  ]);
});

test('a receiver that does not answer within HERALD_WEBHOOK_TIMEOUT_MS fails the attempt, which is retried 5 s later', async (t) => {
  const silent = createServer(() => {}); // reads the request, never answers
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
  t.after(() => { silent.closeAllConnections(); silent.close(); });
  const service = await serviceAtT0(t, { HERALD_WEBHOOK_TIMEOUT_MS: '200' });
  const account = await openAccount(service);
  const put = await call(service, 'PUT', '/v1/webhooks', account.apiKey, { url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/hook` });
  assert.equal(put.statusCode, 200);
  const msgid = await sentSms(service, account, '+5215512345678');
  await service.webhooks.drain();

  const [delivery] = await deliveriesOf(service, account, msgid);
  const log = await attemptsOf(service, account, delivery?.id ?? '');
  assert.deepStrictEqual(log.attempts.map((a) => [a.status_code, a.error]), [[null, 'timed out after 200 ms']]);
  assert.equal((await call(service, 'GET', `/v1/webhooks/deliveries/${delivery?.id}`, account.apiKey)).json().next_attempt_at, iso(T0 + 5 * SECOND));
});

test('an event whose account has no webhook URL any more when its turn comes is failed with "no webhook URL" and nothing is posted', async (t) => {
  const service = await serviceAtT0(t);
  const receiver = await startWebhookReceiver(t);
  const account = await openAccount(service);
  await subscribe(service, account.apiKey, receiver);
  const msgid = await sentSms(service, account, '+5215512345678');
  assert.equal((await call(service, 'PUT', '/v1/webhooks', account.apiKey, { url: null })).statusCode, 200);
  await service.webhooks.drain();

  const [delivery] = await deliveriesOf(service, account, msgid);
  const log = await attemptsOf(service, account, delivery?.id ?? '');
  assert.deepStrictEqual([log.status, log.last_error, log.attempt_count, log.attempts], ['failed', 'no webhook URL', 0, []]);
  assert.deepStrictEqual(receiver.received, []);
  const retry = await call(service, 'POST', `/v1/webhooks/deliveries/${delivery?.id}/retry`, account.apiKey);
  assert.deepStrictEqual([retry.statusCode, retry.json()], [409, { message: 'No webhook URL is set' }]);
});
