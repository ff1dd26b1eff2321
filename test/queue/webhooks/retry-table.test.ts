// The table of answers (src/queue/webhooks/retry-policy.ts), a test per row, each against a
// real receiver on loopback that verifies signatures. Time is Date.now mocked by
// node:test, as in outage.test.ts: the service's clock and the receiver's check of the
// signature timestamps move together.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { uuidv7 } from '../../../src/app/uuidv7-source.ts';
import type { Service } from '../../../src/service.ts';
import { recordEvent } from '../../../src/store/messages.ts';
import { call, startWebhookReceiver, subscribe, type WebhookReceiver } from '../../peers/webhook-receiver.ts';
import { ADMIN_TOKEN, openAccount, post, smsBody, startService, type TestAccount } from '../../support/service.ts';

const T0 = Date.UTC(2030, 0, 1);
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/** The schedule's last attempt, every attempt failing: 27 h 35 min 5 s after the event. */
const SCHEDULE_SPAN = 5 * SECOND + 5 * MINUTE + 30 * MINUTE + 2 * HOUR + 5 * HOUR + 10 * HOUR + 10 * HOUR;
const iso = (ms: number): string => new Date(ms).toISOString();

interface DeliveryLog {
  status: string;
  attempt_count: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  attempts: { at: string; url: string; status_code: number | null; error: string | null }[];
}

interface Setup { service: Service; receiver: WebhookReceiver; account: TestAccount }

/** A service at T0 whose account posts to a receiver on loopback (subscribed through PUT /v1/webhooks). */
async function subscribed(t: TestContext): Promise<Setup> {
  t.mock.timers.enable({ apis: ['Date'], now: T0 });
  const service = await startService(t);
  const receiver = await startWebhookReceiver(t);
  const account = await openAccount(service);
  await subscribe(service, account.apiKey, receiver);
  return { service, receiver, account };
}

/** An SMS handed to the capture transport: its `sms.sent` delivery is queued, due at once. Returns the delivery's id. */
async function queuedEvent({ service, account }: Pick<Setup, 'service' | 'account'>): Promise<string> {
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody());
  assert.equal(res.statusCode, 200);
  await service.worker.drain();
  const listed = (await call(service, 'GET', '/v1/webhooks/deliveries', account.apiKey)).json() as { data: { id: string }[] };
  const [newest] = listed.data;
  assert.ok(newest);
  return newest.id;
}

async function logOf(service: Service, account: TestAccount, id: string): Promise<DeliveryLog> {
  return (await call(service, 'GET', `/v1/webhooks/deliveries/${id}`, account.apiKey)).json();
}

function admin(service: Service, method: 'PATCH', url: string, body: unknown): Promise<LightMyRequestResponse> {
  return service.http.inject({
    method, url, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, payload: JSON.stringify(body),
  });
}

test('a 2xx answer: the delivery succeeded', async (t) => {
  const setup = await subscribed(t);
  const id = await queuedEvent(setup);
  assert.equal(await setup.service.webhooks.drain(), 1);
  const log = await logOf(setup.service, setup.account, id);
  assert.deepStrictEqual([log.status, log.attempt_count, log.last_status_code, log.last_error, log.next_attempt_at], ['succeeded', 1, 200, null, null]);
  assert.deepStrictEqual(setup.receiver.received.map((e) => e.id), [id]);
});

test('a 410 answer fails the delivery, disables the endpoint and says so in the delivery log and GET /v1/webhooks', async (t) => {
  const setup = await subscribed(t);
  const { service, receiver, account } = setup;
  const id = await queuedEvent(setup);
  receiver.answerWith(410);
  assert.equal(await service.webhooks.drain(), 1);

  const log = await logOf(service, account, id);
  const said = 'HTTP 410: receiver says no; webhooks disabled until the settings are saved again';
  assert.deepStrictEqual([log.status, log.attempt_count, log.next_attempt_at, log.last_status_code, log.last_error], ['failed', 1, null, 410, said]);
  assert.deepStrictEqual(log.attempts.map((a) => [a.at, a.status_code, a.error]), [[iso(T0), 410, said]]);
  const settings = (await call(service, 'GET', '/v1/webhooks', account.apiKey)).json();
  assert.deepStrictEqual([settings.url, settings.disabled_at, settings.disabled_reason], [receiver.url, iso(T0), 'the endpoint answered 410 Gone']);
});

test('while the endpoint is disabled nothing is queued for it, and saving the settings again enables it', async (t) => {
  const setup = await subscribed(t);
  const { service, receiver, account } = setup;
  await queuedEvent(setup);
  receiver.answerWith(410);
  await service.webhooks.drain();

  await post(service, '/v1/sms/send', account.apiKey, smsBody());
  await service.worker.drain();
  const listed = (await call(service, 'GET', '/v1/webhooks/deliveries', account.apiKey)).json();
  assert.equal(listed.data.length, 1, 'the event of the second SMS was not queued');

  receiver.answerWith(200);
  const saved = await call(service, 'PUT', '/v1/webhooks', account.apiKey, { url: receiver.url });
  assert.deepStrictEqual([saved.statusCode, saved.json().disabled_at, saved.json().disabled_reason], [200, null, null]);
  const id = await queuedEvent(setup);
  assert.equal(await service.webhooks.drain(), 1);
  assert.deepStrictEqual(receiver.received.map((e) => e.id), [id]);
});

test('a delivery queued before the endpoint was disabled fails at once when its turn comes, without a post', async (t) => {
  const setup = await subscribed(t);
  const { service, receiver, account } = setup;
  const sent = await queuedEvent(setup);
  // The message's next event, queued now, waits behind its `sms.sent` (head of line).
  const { msgid } = (await call(service, 'GET', `/v1/webhooks/deliveries/${sent}`, account.apiKey)).json() as { msgid: string };
  await service.deps.db.transaction().execute((tx) =>
    recordEvent(tx, { messageId: msgid, status: 'delivered', eventId: uuidv7(), at: T0, data: { peer: 'smsc', response: 'stat:DELIVRD err:000' } }));
  const listed = (await call(service, 'GET', '/v1/webhooks/deliveries', account.apiKey)).json() as { data: { id: string }[] };
  const delivered = listed.data.find((d) => d.id !== sent)?.id ?? '';
  receiver.answerWith(410);
  assert.equal(await service.webhooks.drain(), 2);

  const log = await logOf(service, account, delivered);
  assert.deepStrictEqual([log.status, log.attempt_count, log.attempts, log.last_status_code, log.last_error], [
    'failed', 0, [], null, 'webhooks disabled: the endpoint answered 410 Gone',
  ]);
  assert.deepStrictEqual(receiver.refused.map((e) => e.id), [sent]);
});

test('a 429 with Retry-After in seconds: the next attempt comes when asked, later than the schedule\'s 5 s', async (t) => {
  const setup = await subscribed(t);
  const { service, receiver, account } = setup;
  const id = await queuedEvent(setup);
  receiver.answerWith(429, { 'retry-after': '120' });
  await service.webhooks.drain();

  const log = await logOf(service, account, id);
  assert.deepStrictEqual([log.status, log.attempt_count, log.last_status_code, log.next_attempt_at], ['pending', 1, 429, iso(T0 + 120 * SECOND)]);
  receiver.answerWith(200);
  t.mock.timers.setTime(T0 + 120 * SECOND - 1);
  assert.equal(await service.webhooks.drain(), 0, 'nothing a millisecond before the time asked for');
  t.mock.timers.setTime(T0 + 120 * SECOND);
  assert.equal(await service.webhooks.drain(), 1);
  assert.deepStrictEqual(receiver.received.map((e) => e.id), [id]);
});

test('a 503 with Retry-After as an HTTP date: the next attempt comes at that date', async (t) => {
  const setup = await subscribed(t);
  const { service, receiver, account } = setup;
  const id = await queuedEvent(setup);
  receiver.answerWith(503, { 'retry-after': new Date(T0 + 10 * MINUTE).toUTCString() });
  await service.webhooks.drain();
  const log = await logOf(service, account, id);
  assert.deepStrictEqual([log.status, log.last_status_code, log.next_attempt_at], ['pending', 503, iso(T0 + 10 * MINUTE)]);
});

test('a Retry-After shorter than the schedule\'s delay waits for the schedule', async (t) => {
  const setup = await subscribed(t);
  const { service, receiver, account } = setup;
  const id = await queuedEvent(setup);
  receiver.answerWith(429, { 'retry-after': '1' });
  await service.webhooks.drain();
  assert.equal((await logOf(service, account, id)).next_attempt_at, iso(T0 + 5 * SECOND));
});

test('a Retry-After beyond the schedule\'s last attempt is cut to it', async (t) => {
  const setup = await subscribed(t);
  const { service, receiver, account } = setup;
  const id = await queuedEvent(setup);
  receiver.answerWith(429, { 'retry-after': String(7 * 24 * 3600) });
  await service.webhooks.drain();
  assert.equal((await logOf(service, account, id)).next_attempt_at, iso(T0 + SCHEDULE_SPAN));
});

test('a refused (private) address ends the delivery at once: no post, no retry', async (t) => {
  t.mock.timers.enable({ apis: ['Date'], now: T0 });
  const service = await startService(t, { env: { HERALD_FETCH_ALLOW_PRIVATE: 'false' } });
  const receiver = await startWebhookReceiver(t);
  const account = await openAccount(service);
  // The operator's URL is not resolved when it is set; the guard refuses it at the post.
  const patched = await admin(service, 'PATCH', `/admin/v1/accounts/${account.id}`, { webhookUrl: receiver.url });
  assert.equal(patched.statusCode, 200);
  const id = await queuedEvent({ service, account });
  await service.webhooks.drain();

  const log = await logOf(service, account, id);
  const refused = 'refused to post to 127.0.0.1: 127.0.0.1 is a private or reserved address';
  assert.deepStrictEqual([log.status, log.attempt_count, log.next_attempt_at, log.last_status_code, log.last_error], ['failed', 1, null, null, refused]);
  assert.deepStrictEqual(log.attempts.map((a) => [a.at, a.status_code, a.error]), [[iso(T0), null, refused]]);
  assert.deepStrictEqual([receiver.received.length, receiver.refused.length, receiver.rejected.length], [0, 0, 0]);
});

test('a malformed stored URL ends the delivery at once', async (t) => {
  const setup = await subscribed(t);
  const { service, account } = setup;
  const id = await queuedEvent(setup);
  // No route stores such a URL; a row written before URLs were checked might hold one.
  await service.deps.db.updateTable('accounts').set({ webhook_url: 'http://[::1' }).where('id', '=', account.id).execute();
  await service.webhooks.drain();
  const log = await logOf(service, account, id);
  assert.deepStrictEqual([log.status, log.attempt_count, log.next_attempt_at, log.last_error], ['failed', 1, null, 'invalid URL']);
});

test('a 5xx answer follows the schedule: the next attempt 5 s after the first', async (t) => {
  const setup = await subscribed(t);
  const { service, receiver, account } = setup;
  const id = await queuedEvent(setup);
  receiver.answerWith(500);
  await service.webhooks.drain();

  const log = await logOf(service, account, id);
  assert.deepStrictEqual([log.status, log.attempt_count, log.last_status_code, log.last_error, log.next_attempt_at], [
    'pending', 1, 500, 'HTTP 500: receiver says no', iso(T0 + 5 * SECOND),
  ]);
  const settings = (await call(service, 'GET', '/v1/webhooks', account.apiKey)).json();
  assert.equal(settings.disabled_at, null);
});
