// Users' WhatsApp messages through the signed Cloud API webhook: stored as the
// account's inbound messages, posted as `whatsapp.received`, their media fetched
// afterwards from a Graph API stand-in by the media queue.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { listInbound } from '../../src/store/inbound-messages.ts';
import { addWhatsappTemplate, get, openAccount, post, startService } from '../support/service.ts';
import { cloudApiWorker, postWebhook, startCloudApiStandIn } from '../peers/whatsapp-cloud-api.ts';
import { startGraphMediaStandIn } from '../peers/graph-media.ts';

const APP_SECRET = 'meta-app-secret-0123456789';
const PHONE_NUMBER_ID = '106540352242922';
const TOKEN = 'EAAG-token';
const RECEIVED_AT = 1_767_225_600_000; // the fixtures' timestamp, 2026-01-01T00:00:00Z
const T0 = RECEIVED_AT + 60_000;

const fixture = (name: string): string => readFileSync(new URL(`../fixtures/whatsapp/${name}.json`, import.meta.url), 'utf8');

async function receiving(t: TestContext, env: Record<string, string> = {}) {
  const service = await startService(t, { env: { HERALD_WHATSAPP_APP_SECRET: APP_SECRET, ...env }, clock: () => T0 });
  const account = await openAccount(service, { balance: 10_000, whatsappPrice: 500, whatsappPhoneNumberId: PHONE_NUMBER_ID, whatsappAccessToken: TOKEN });
  const deliver = async (body: string): Promise<void> => {
    const res = await postWebhook(service, body, { appSecret: APP_SECRET });
    assert.equal(res.statusCode, 200);
  };
  const inbound = () => listInbound(service.store.db, account.id, { limit: 10 });
  return { service, account, deliver, inbound };
}

test('a text message is stored as the account\'s inbound message, its window opened', async (t) => {
  const { service, account, deliver, inbound } = await receiving(t);

  await deliver(fixture('text'));

  const [message, ...rest] = await inbound();
  assert.equal(rest.length, 0);
  assert.deepStrictEqual({ ...message, id: undefined }, {
    id: undefined, accountId: account.id, channel: 'whatsapp', from: '+5215512345678', to: PHONE_NUMBER_ID, text: '¿Tienen la talla 38?',
    content: { type: 'text', profile_name: 'Ana Ruiz' }, keyword: null, replyTo: null, receivedAt: RECEIVED_AT, attachments: [],
  });
  // The window is open: a session message may answer.
  const reply = await post(service, '/v1/whatsapp/sendMessage', account.apiKey, { destination: '5215512345678', message: 'Sí, la tenemos' });
  assert.equal(reply.statusCode, 200, reply.body);
});

test('a resend of the same wamid is stored once', async (t) => {
  const { service, deliver, inbound } = await receiving(t);

  await deliver(fixture('text'));
  await deliver(fixture('text'));

  assert.equal((await inbound()).length, 1);
  assert.equal(service.inboundMedia, undefined, 'with the capture transport no media queue runs');
});

test('a reply button pressed on herald\'s template answers that message\'s msgid, and is posted as whatsapp.received', async (t) => {
  const { service, account, deliver, inbound } = await receiving(t);
  const peer = await startCloudApiStandIn(t);
  const template = await addWhatsappTemplate(service, account.id);
  const hook = await service.http.inject({
    method: 'PUT', url: '/v1/webhooks', headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' }, payload: { url: 'https://hooks.example.com/in' },
  });
  assert.equal(hook.statusCode, 200);
  const msgid: string = (await post(service, '/v1/whatsapp/sendTemplateMessage', account.apiKey, { destination: '5215512345678', templateId: template.id, params: ['Ana', '1234'] })).json().msgid;
  await cloudApiWorker(service, peer.baseUrl, () => T0).drain(); // sent as wamid.1

  await deliver(fixture('button-reply').replaceAll('wamid.HERALD-SENT-1', 'wamid.1'));

  const [message] = await inbound();
  assert.equal(message?.replyTo, msgid);
  const deliveries = (await get(service, '/v1/webhooks/deliveries', account.apiKey)).json().data as { type: string }[];
  assert.ok(deliveries.some((d) => d.type === 'whatsapp.received'), JSON.stringify(deliveries));
  const row = await service.store.db.selectFrom('webhook_deliveries').select('payload').where('type', '=', 'whatsapp.received').executeTakeFirstOrThrow();
  assert.deepStrictEqual(JSON.parse(row.payload).data, {
    type: 'button_reply', profile_name: 'Ana Ruiz', button: { id: 'change-date', title: 'Cambiar fecha' },
    id: message?.id, channel: 'whatsapp', from: '+5215512345678', to: PHONE_NUMBER_ID, text: 'Cambiar fecha',
    received_at: '2026-01-01T00:00:00.000Z', account: account.id, in_reply_to: msgid,
  });
});

test('an image is stored with a pending attachment, which the service\'s media queue fetches from the Cloud API transport\'s Graph API', async (t) => {
  const graph = await startGraphMediaStandIn(t, TOKEN);
  // startService allows private addresses (HERALD_FETCH_ALLOW_PRIVATE), so the loopback media URL may be fetched.
  const { service, account, deliver, inbound } = await receiving(t, { HERALD_WHATSAPP_TRANSPORT: graph.baseUrl });
  const jpeg = Buffer.from('ffd8ffe000104a464946000101ffd9', 'hex');
  graph.media.set('1479537139650973', { bytes: jpeg, mimeType: 'image/jpeg' });

  await deliver(fixture('image'));
  const [message] = await inbound();
  assert.ok(message);
  assert.equal(message.text, 'La etiqueta');
  assert.deepStrictEqual(message.attachments.map(({ filename, contentType, size, state }) => ({ filename, contentType, size, state })), [
    { filename: null, contentType: 'image/jpeg', size: 0, state: 'pending' },
  ]);

  assert.equal(await service.inboundMedia?.drain(), 1);

  // Downloadable through herald, with the account's key.
  const download = await get(service, `/v1/inbound/${message.id}/attachments/${message.attachments[0]?.id ?? ''}`, account.apiKey);
  assert.equal(download.statusCode, 200);
  assert.equal(download.headers['content-type'], 'image/jpeg');
  assert.deepStrictEqual(download.rawPayload, jpeg);
});
