// The inbound Cloud API webhook: registration (verify token), signatures over the
// raw body, and status updates moving the messages herald sent.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { addWhatsappTemplate, get, openAccount, post, startService } from '../support/service.ts';
import { cloudApiWorker, hubSignature, postWebhook, startCloudApiStandIn, statusWebhook } from '../peers/whatsapp-cloud-api.ts';

const APP_SECRET = 'meta-app-secret-0123456789';
const VERIFY_TOKEN = 'verify-me-0123456789';
const PHONE_NUMBER_ID = '106540352242922';
const T0 = Date.UTC(2030, 0, 1);
const ENV = { HERALD_WHATSAPP_APP_SECRET: APP_SECRET, HERALD_WHATSAPP_VERIFY_TOKEN: VERIFY_TOKEN };

const verify = (query: string) => `/webhooks/whatsapp?${query}`;

test('the registration challenge is echoed as text when the verify token matches', async (t) => {
  const service = await startService(t, { env: ENV });
  const res = await service.http.inject({ method: 'GET', url: verify(`hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1158201444`) });
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
  assert.equal(res.body, '1158201444');
});

test('the registration is refused with 403 for a wrong verify token', async (t) => {
  const service = await startService(t, { env: ENV });
  const res = await service.http.inject({ method: 'GET', url: verify('hub.mode=subscribe&hub.verify_token=guess&hub.challenge=1158201444') });
  assert.equal(res.statusCode, 403);
  assert.deepStrictEqual(res.json(), { message: 'Invalid signature' });
});

test('the registration is refused with 403 when no verify token is configured', async (t) => {
  const service = await startService(t);
  const res = await service.http.inject({ method: 'GET', url: verify('hub.mode=subscribe&hub.verify_token=&hub.challenge=1158201444') });
  assert.equal(res.statusCode, 403);
});

test('the registration is refused with 403 for a mode other than subscribe', async (t) => {
  const service = await startService(t, { env: ENV });
  const res = await service.http.inject({ method: 'GET', url: verify(`hub.mode=unsubscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1`) });
  assert.equal(res.statusCode, 403);
});

test('a delivery with a wrong signature answers 401 Invalid signature', async (t) => {
  const service = await startService(t, { env: ENV });
  const res = await postWebhook(service, statusWebhook(PHONE_NUMBER_ID, { id: 'wamid.1', status: 'delivered', timestamp: 1, recipient: '5215512345678' }), { appSecret: 'not-the-secret' });
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'Invalid signature' });
});

test('a delivery without a signature answers 401 Invalid signature', async (t) => {
  const service = await startService(t, { env: ENV });
  const res = await postWebhook(service, { object: 'whatsapp_business_account', entry: [] }, { signature: null });
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'Invalid signature' });
});

test('the signature covers the raw bytes: the same JSON re-spaced does not verify', async (t) => {
  const service = await startService(t, { env: ENV });
  const raw = '{"object":"whatsapp_business_account","entry":[]}';
  const res = await postWebhook(service, '{ "object": "whatsapp_business_account", "entry": [] }', { signature: hubSignature(raw, APP_SECRET) });
  assert.equal(res.statusCode, 401);
});

test('a delivery is answered 503 while no app secret is configured', async (t) => {
  const service = await startService(t);
  const res = await postWebhook(service, { object: 'whatsapp_business_account', entry: [] }, { appSecret: '' });
  assert.equal(res.statusCode, 503);
  assert.deepStrictEqual(res.json(), { message: 'Service temporarily unavailable, please try again' });
});

test('a well-signed status for a wamid herald does not know is answered 200', async (t) => {
  const service = await startService(t, { env: ENV });
  const res = await postWebhook(service, statusWebhook(PHONE_NUMBER_ID, { id: 'wamid.unknown', status: 'read', timestamp: 1, recipient: '5215512345678' }), { appSecret: APP_SECRET });
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), { received: true });
});

test('the webhook needs no API key', async (t) => {
  const service = await startService(t, { env: ENV });
  const res = await postWebhook(service, { object: 'whatsapp_business_account', entry: [] }, { appSecret: APP_SECRET });
  assert.equal(res.statusCode, 200);
});

test('a well-signed body that is not JSON answers 400', async (t) => {
  const service = await startService(t, { env: ENV });
  const res = await postWebhook(service, '{not json', { appSecret: APP_SECRET });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Invalid request, missing parameters. err 1' });
});

/** A template message accepted over HTTP and delivered through the Cloud API stand-in: status `sent`, wamid.1. */
async function sentTemplateMessage(t: TestContext) {
  const now = { value: T0 };
  const service = await startService(t, { env: ENV, clock: () => now.value });
  const peer = await startCloudApiStandIn(t);
  const account = await openAccount(service, { balance: 10_000, whatsappPrice: 500, whatsappPhoneNumberId: PHONE_NUMBER_ID, whatsappAccessToken: 'EAAG-token' });
  const template = await addWhatsappTemplate(service, account.id);
  const res = await post(service, '/v1/whatsapp/sendTemplateMessage', account.apiKey, { destination: '5215512345678', templateId: template.id, params: ['Ana', '1234'] });
  const msgid: string = res.json().msgid;
  await cloudApiWorker(service, peer.baseUrl, () => now.value).drain();
  const view = (await get(service, `/v1/messages/${msgid}`, account.apiKey)).json();
  assert.equal(view.status, 'sent');
  return { service, account, msgid, now };
}

const SECONDS = T0 / 1000;

test('a signed `delivered` status moves the message from sent to delivered, with Meta\'s time', async (t) => {
  const { service, account, msgid } = await sentTemplateMessage(t);

  const res = await postWebhook(service, statusWebhook(PHONE_NUMBER_ID, { id: 'wamid.1', status: 'delivered', timestamp: SECONDS + 5, recipient: '5215512345678' }), { appSecret: APP_SECRET });

  assert.equal(res.statusCode, 200);
  const view = (await get(service, `/v1/messages/${msgid}`, account.apiKey)).json();
  assert.equal(view.status, 'delivered');
  assert.deepStrictEqual(view.events.at(-1), { type: 'delivered', at: '2030-01-01T00:00:05.000Z', peer: 'whatsapp-webhook', response: 'delivered' });
});

test('a `read` status after delivery is recorded as an event of the delivered message', async (t) => {
  const { service, account, msgid } = await sentTemplateMessage(t);
  await postWebhook(service, statusWebhook(PHONE_NUMBER_ID, { id: 'wamid.1', status: 'delivered', timestamp: SECONDS + 5, recipient: '5215512345678' }), { appSecret: APP_SECRET });

  await postWebhook(service, statusWebhook(PHONE_NUMBER_ID, { id: 'wamid.1', status: 'read', timestamp: SECONDS + 60, recipient: '5215512345678' }), { appSecret: APP_SECRET });

  const view = (await get(service, `/v1/messages/${msgid}`, account.apiKey)).json();
  assert.equal(view.status, 'delivered');
  assert.deepStrictEqual(view.events.map((e: { type: string }) => e.type), ['queued', 'sending', 'sent', 'delivered', 'read']);
  assert.deepStrictEqual(view.events.at(-1), { type: 'read', at: '2030-01-01T00:01:00.000Z', peer: 'whatsapp-webhook', response: 'read' });
});

test('a signed `failed` status fails the sent message with Meta\'s error', async (t) => {
  const { service, account, msgid } = await sentTemplateMessage(t);

  await postWebhook(service, statusWebhook(PHONE_NUMBER_ID, {
    id: 'wamid.1', status: 'failed', timestamp: SECONDS + 5, recipient: '5215512345678',
    errors: [{ code: 131026, title: 'Message undeliverable', message: 'Message undeliverable', error_data: { details: 'Message Undeliverable.' } }],
  }), { appSecret: APP_SECRET });

  const view = (await get(service, `/v1/messages/${msgid}`, account.apiKey)).json();
  assert.equal(view.status, 'failed');
  assert.deepStrictEqual(view.events.at(-1), {
    type: 'failed', at: '2030-01-01T00:00:05.000Z', peer: 'whatsapp-webhook', response: 'failed: 131026 Message undeliverable (Message Undeliverable.)',
  });
});

test('the Cloud API send records the stand-in\'s wamid and answer on the sent event', async (t) => {
  const { service, account, msgid } = await sentTemplateMessage(t);
  const sent = (await get(service, `/v1/messages/${msgid}`, account.apiKey)).json().events.at(-1);
  assert.match(sent.peer, /^127\.0\.0\.1:[0-9]+$/);
  assert.deepStrictEqual(sent, { type: 'sent', at: '2030-01-01T00:00:00.000Z', attempt: 1, peer: sent.peer, response: 'HTTP 200 wamid.1' });
});
