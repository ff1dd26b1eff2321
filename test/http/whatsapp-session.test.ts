// POST /v1/whatsapp/sendMessage: free text inside the 24-hour customer-service
// window that an inbound message opens.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { get, keyWithScopes, openAccount, post, readAccount, startService, UUID } from '../support/service.ts';
import { cloudApiWorker, inboundWebhook, postWebhook, startCloudApiStandIn } from '../peers/whatsapp-cloud-api.ts';

const URL = '/v1/whatsapp/sendMessage';
const APP_SECRET = 'meta-app-secret-0123456789';
const PHONE_NUMBER_ID = '106540352242922';
const USER = '5215512345678';
const T0 = Date.UTC(2030, 0, 1);
const HOUR = 3_600_000;

/** A service whose clock the test moves, and an account sending from PHONE_NUMBER_ID: balance 1.00, price 0.05. */
async function sessionService(t: TestContext, input: Parameters<typeof openAccount>[1] = {}) {
  const now = { value: T0 };
  const service = await startService(t, { env: { HERALD_WHATSAPP_APP_SECRET: APP_SECRET }, clock: () => now.value });
  const account = await openAccount(service, {
    balance: 10_000, whatsappPrice: 500, whatsappPhoneNumberId: PHONE_NUMBER_ID, whatsappAccessToken: 'EAAG-token', ...input,
  });
  return { service, account, now };
}

/** The user writes to the account's number at the service's current time. */
async function userWrites(service: Awaited<ReturnType<typeof sessionService>>['service'], at: number, from = USER, phoneNumberId = PHONE_NUMBER_ID) {
  const res = await postWebhook(service, inboundWebhook(phoneNumberId, { from, timestamp: Math.floor(at / 1000), text: 'hello' }), { appSecret: APP_SECRET });
  assert.equal(res.statusCode, 200);
}

test('after the user wrote, a session message gets 200 with the balance after the send and a msgid', async (t) => {
  const { service, account, now } = await sessionService(t);
  await userWrites(service, now.value);

  const res = await post(service, URL, account.apiKey, { destination: USER, message: 'Your order shipped' });

  assert.equal(res.statusCode, 200);
  const body = res.json();
  assert.match(body.msgid, UUID);
  assert.deepStrictEqual(body, { result: 'WhatsApp message queued for delivery', current_balance: 0.95, msgid: body.msgid });
});

test('the session message reaches the Cloud API as a text message with the exact body', async (t) => {
  const { service, account, now } = await sessionService(t);
  const peer = await startCloudApiStandIn(t);
  await userWrites(service, now.value);
  const msgid: string = (await post(service, URL, account.apiKey, { destination: `+${USER}`, message: 'Your order shipped' })).json().msgid;

  await cloudApiWorker(service, peer.baseUrl, () => now.value).drain();

  assert.equal(peer.requests.length, 1);
  assert.equal(peer.requests[0]?.path, `/v23.0/${PHONE_NUMBER_ID}/messages`);
  assert.equal(peer.requests[0]?.headers.authorization, 'Bearer EAAG-token');
  assert.deepStrictEqual(peer.requests[0]?.json, {
    messaging_product: 'whatsapp', recipient_type: 'individual', to: USER, type: 'text', text: { body: 'Your order shipped' },
  });
  assert.equal((await get(service, `/v1/messages/${msgid}`, account.apiKey)).json().status, 'sent');
});

test('without an inbound message the session send answers 400 No open session with this destination', async (t) => {
  const { service, account } = await sessionService(t);
  const res = await post(service, URL, account.apiKey, { destination: USER, message: 'Hello' });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'No open session with this destination' });
});

test('a window opened 24 hours ago is closed', async (t) => {
  const { service, account, now } = await sessionService(t);
  await userWrites(service, now.value);
  now.value += 24 * HOUR;

  const res = await post(service, URL, account.apiKey, { destination: USER, message: 'Hello' });

  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'No open session with this destination' });
});

test('a window is still open one millisecond before 24 hours', async (t) => {
  const { service, account, now } = await sessionService(t);
  await userWrites(service, now.value);
  now.value += 24 * HOUR - 1;

  const res = await post(service, URL, account.apiKey, { destination: USER, message: 'Hello' });

  assert.equal(res.statusCode, 200);
});

test('a later inbound message refreshes the window', async (t) => {
  const { service, account, now } = await sessionService(t);
  await userWrites(service, now.value);
  now.value += 20 * HOUR;
  await userWrites(service, now.value);
  now.value += 20 * HOUR;

  const res = await post(service, URL, account.apiKey, { destination: USER, message: 'Hello' });

  assert.equal(res.statusCode, 200);
});

test('a late webhook of an older message does not move the window back', async (t) => {
  const { service, account, now } = await sessionService(t);
  now.value += 20 * HOUR;
  await userWrites(service, now.value);
  await userWrites(service, T0);
  now.value += 20 * HOUR;

  const res = await post(service, URL, account.apiKey, { destination: USER, message: 'Hello' });

  assert.equal(res.statusCode, 200);
});

test('a message to another business number opens no window for this account', async (t) => {
  const { service, account, now } = await sessionService(t);
  await userWrites(service, now.value, USER, '999999999999999');

  const res = await post(service, URL, account.apiKey, { destination: USER, message: 'Hello' });

  assert.deepStrictEqual(res.json(), { message: 'No open session with this destination' });
});

test('a window with one user is not a window with another', async (t) => {
  const { service, account, now } = await sessionService(t);
  await userWrites(service, now.value, '5215599999999');

  const res = await post(service, URL, account.apiKey, { destination: USER, message: 'Hello' });

  assert.deepStrictEqual(res.json(), { message: 'No open session with this destination' });
});

test('the session message takes the WhatsApp price from the balance', async (t) => {
  const { service, account, now } = await sessionService(t);
  await userWrites(service, now.value);
  await post(service, URL, account.apiKey, { destination: USER, message: 'Hello' });
  assert.equal((await readAccount(service, account.id)).balance, 9_500);
});

test('a session message beyond the balance answers 401 Insufficient balance', async (t) => {
  const { service, account, now } = await sessionService(t, { balance: 400 });
  await userWrites(service, now.value);
  const res = await post(service, URL, account.apiKey, { destination: USER, message: 'Hello' });
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'Insufficient balance' });
});

test('an empty session message answers 400 Message missing or empty!', async (t) => {
  const { service, account, now } = await sessionService(t);
  await userWrites(service, now.value);
  const res = await post(service, URL, account.apiKey, { destination: USER, message: '   ' });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Message missing or empty!' });
});

test('a missing session message answers 400 Message missing or empty!', async (t) => {
  const { service, account } = await sessionService(t);
  const res = await post(service, URL, account.apiKey, { destination: USER });
  assert.deepStrictEqual(res.json(), { message: 'Message missing or empty!' });
});

test('a session message over 4096 characters answers 400 with the field named', async (t) => {
  const { service, account, now } = await sessionService(t);
  await userWrites(service, now.value);
  const res = await post(service, URL, account.apiKey, { destination: USER, message: 'x'.repeat(4097) });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Invalid request, a field has the wrong type or value', detail: 'message: must be at most 4096 characters' });
});

test('a malformed destination answers 400 Invalid destination before the message is looked at', async (t) => {
  const { service, account } = await sessionService(t);
  const res = await post(service, URL, account.apiKey, { destination: '12ab', message: '' });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Invalid destination' });
});

test('a body that is not an object answers 400 err 1', async (t) => {
  const { service, account } = await sessionService(t);
  const res = await post(service, URL, account.apiKey, '[]');
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Invalid request, missing parameters. err 1' });
});

test('a key without the whatsapp scope answers 401 API key not authorized.', async (t) => {
  const { service, account } = await sessionService(t);
  const smsKey = await keyWithScopes(service, account.id, ['sms']);
  const res = await post(service, URL, smsKey, { destination: USER, message: 'Hello' });
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'API key not authorized.' });
});

test('an account with WhatsApp switched off answers 401 current service is not active', async (t) => {
  const { service, account, now } = await sessionService(t, { services: { whatsapp: false } });
  await userWrites(service, now.value);
  const res = await post(service, URL, account.apiKey, { destination: USER, message: 'Hello' });
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'current service is not active' });
});

test('a session message without API key answers 403 No API Key sent', async (t) => {
  const { service } = await sessionService(t);
  const res = await post(service, URL, undefined, { destination: USER, message: 'Hello' });
  assert.equal(res.statusCode, 403);
  assert.deepStrictEqual(res.json(), { error: 'No API Key sent' });
});
