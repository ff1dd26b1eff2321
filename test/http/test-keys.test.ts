// Test keys (docs/sandbox.md): a key made in test mode starts `test_`, sends through the
// capture transports whatever is configured (a real SMTP relay, a real SMSC on loopback
// here, which must receive nothing), is never billed (the ledger), keeps its messages
// apart in the log, marks its webhooks `test: true`, and shares the account's templates
// and sender domains with its live keys.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Service } from '../../src/service.ts';
import { listLedger } from '../../src/store/ledger.ts';
import { startSmsc, type Smsc } from '../peers/smsc.ts';
import { startCloudApiStandIn, type CloudApiStandIn } from '../peers/whatsapp-cloud-api.ts';
import { startSmtpSink, type SmtpSink } from '../peers/smtp-sink.ts';
import { startWebhookReceiver, subscribe } from '../peers/webhook-receiver.ts';
import {
  ADMIN_TOKEN, addWhatsappTemplate, emailBody, get, openAccount, post, readAccount, smsBody, startService, type TestAccount,
} from '../support/service.ts';

const JWT = '[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+';

interface World {
  readonly service: Service;
  readonly account: TestAccount;
  readonly testKey: string;
  readonly sink: SmtpSink;
  readonly smsc: Smsc;
  readonly cloudApi: CloudApiStandIn;
}

/** A service whose email goes to a real relay, SMS to a real SMSC and WhatsApp to a Cloud API stand-in, an account, and a test key made through /v1/api-keys. */
async function world(t: TestContext, account: Parameters<typeof openAccount>[1] = {}): Promise<World> {
  const sink = await startSmtpSink({ starttls: false });
  t.after(() => sink.close());
  const smsc = await startSmsc();
  t.after(() => smsc.close());
  const cloudApi = await startCloudApiStandIn(t);
  const service = await startService(t, {
    env: { HERALD_EMAIL_TRANSPORT: `smtp://${sink.host}:${sink.port}`, HERALD_SMS_TRANSPORT: smsc.url(), HERALD_WHATSAPP_TRANSPORT: cloudApi.baseUrl },
  });
  const opened = await openAccount(service, account);
  const made = await post(service, '/v1/api-keys', opened.apiKey, { name: 'CI', scopes: ['email', 'sms', 'whatsapp', 'webhooks', 'account'], mode: 'test' });
  assert.equal(made.statusCode, 201, made.body);
  return { service, account: opened, testKey: made.json().api_key as string, sink, smsc, cloudApi };
}

test('a key made with mode test through /v1/api-keys starts test_ and says its mode', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/api-keys', account.apiKey, { name: 'CI', scopes: ['email'], mode: 'test' });
  const body = res.json();
  assert.equal(res.statusCode, 201);
  assert.match(body.api_key, new RegExp(`^test_${JWT}$`));
  assert.equal(body.mode, 'test');
  const listed = (await get(service, '/v1/api-keys', account.apiKey)).json().api_keys as { key_id: string; mode: string }[];
  assert.deepStrictEqual(listed.map((k) => k.mode), ['live', 'test']);
});

test('a key mode other than live or test is refused with the field named', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/api-keys', account.apiKey, { name: 'CI', scopes: ['email'], mode: 'sandbox' });
  assert.deepStrictEqual([res.statusCode, res.json()], [400, { message: 'Invalid request, a field has the wrong type or value', detail: 'mode: must be "live" or "test"' }]);
});

test('the operator API issues a test key with mode test', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await service.http.inject({
    method: 'POST', url: `/admin/v1/accounts/${account.id}/api-keys`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, payload: { mode: 'test' },
  });
  assert.equal(res.statusCode, 201, res.body);
  assert.match(res.json().apiKey, new RegExp(`^test_${JWT}$`));
  assert.equal(res.json().mode, 'test');
});

test('a live key with test_ put in front of it is an invalid key', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/email', `test_${account.apiKey}`, emailBody());
  assert.deepStrictEqual([res.statusCode, res.json()], [403, { error: 'Invalid API Key ' }]);
});

test('a test key\'s email goes to the capture transport, never to the configured relay', async (t) => {
  const w = await world(t);
  const msgid = (await post(w.service, '/v1/email', w.testKey, emailBody())).json().to[0].msgid as string;
  await w.service.worker.drain();

  const raw = await get(w.service, `/v1/messages/${msgid}/raw`, w.testKey);
  assert.equal(raw.statusCode, 200);
  assert.match(raw.body, /^Subject: Hello\r$/m);
  assert.equal((await get(w.service, `/v1/messages/${msgid}`, w.testKey)).json().status, 'sent');
  assert.equal(w.sink.messages.length, 0);
});

test('a test key\'s SMS goes to the capture transport, never to the configured SMSC', async (t) => {
  const w = await world(t);
  const msgid = (await post(w.service, '/v1/sms/send', w.testKey, smsBody())).json().messages[0].msgid as string;
  await w.service.worker.drain();

  assert.equal((await get(w.service, `/v1/messages/${msgid}/raw`, w.testKey)).statusCode, 200);
  assert.equal((await get(w.service, `/v1/messages/${msgid}`, w.testKey)).json().status, 'sent');
  await sleep(50);
  assert.deepStrictEqual(w.smsc.submits, []);
});

test('a test key\'s WhatsApp message goes to the capture transport, never to the configured Cloud API', async (t) => {
  const w = await world(t);
  const template = await addWhatsappTemplate(w.service, w.account.id);
  const msgid = (await post(w.service, '/v1/whatsapp/sendTemplateMessage', w.testKey, { destination: '+5215512345678', templateId: template.id, params: ['Ana', '1234'] })).json().msgid as string;
  await w.service.worker.drain();

  assert.equal((await get(w.service, `/v1/messages/${msgid}/raw`, w.testKey)).statusCode, 200);
  assert.equal((await get(w.service, `/v1/messages/${msgid}`, w.testKey)).json().status, 'sent');
  assert.deepStrictEqual(w.cloudApi.requests, []);
});

test('a live key of the same account still goes to the configured relay', async (t) => {
  const w = await world(t);
  await post(w.service, '/v1/email', w.account.apiKey, emailBody());
  await w.service.worker.drain();
  assert.deepStrictEqual(w.sink.messages.map((m) => m.rcptTo), [['ana@example.org']]);
});

test('a test key\'s sends on every channel debit nothing and write no ledger row', async (t) => {
  const w = await world(t, { messagesLeft: 10, balance: 50_000, whatsappPrice: 1_000 });
  const template = await addWhatsappTemplate(w.service, w.account.id);
  const ledgerBefore = await listLedger(w.service.deps.db, w.account.id);

  const email = await post(w.service, '/v1/email', w.testKey, emailBody({ to: [{ email: 'ana@example.org' }, { email: 'bo@example.org' }] }));
  const sms = await post(w.service, '/v1/sms/send', w.testKey, smsBody({ mobile_numbers: ['+5215512345678', '+5215512345679'] }));
  const whatsapp = await post(w.service, '/v1/whatsapp/sendTemplateMessage', w.testKey, { destination: '+5215512345678', templateId: template.id, params: ['Ana', '1234'] });
  await w.service.worker.drain();

  assert.deepStrictEqual([email.statusCode, sms.json().messages_left, whatsapp.json().current_balance], [200, 10, 5]);
  const account = await readAccount(w.service, w.account.id);
  assert.deepStrictEqual([account.messagesLeft, account.balance], [10, 50_000]);
  assert.deepStrictEqual(await listLedger(w.service.deps.db, w.account.id), ledgerBefore);
});

test('a test key sends even when the account has nothing left to pay with', async (t) => {
  const w = await world(t, { messagesLeft: 0 });
  const res = await post(w.service, '/v1/sms/send', w.testKey, smsBody());
  assert.deepStrictEqual([res.statusCode, res.json().messages_left, res.json().total_messages_sent], [200, 0, 1]);
});

test('test messages are listed with ?mode=test only; the default list shows live messages', async (t) => {
  const w = await world(t);
  const live = (await post(w.service, '/v1/email', w.account.apiKey, emailBody())).json().to[0].msgid as string;
  const sandboxed = (await post(w.service, '/v1/email', w.testKey, emailBody())).json().to[0].msgid as string;

  const byDefault = (await get(w.service, '/v1/messages', w.account.apiKey)).json();
  const tests = (await get(w.service, '/v1/messages?mode=test', w.account.apiKey)).json();
  const lives = (await get(w.service, '/v1/messages?mode=live', w.testKey)).json();
  assert.deepStrictEqual(byDefault.data.map((m: { msgid: string }) => m.msgid), [live]);
  assert.deepStrictEqual(tests.data.map((m: { msgid: string; mode: string }) => [m.msgid, m.mode]), [[sandboxed, 'test']]);
  assert.deepStrictEqual(lives.data.map((m: { msgid: string }) => m.msgid), [live]);
});

test('a mode filter other than live or test answers 400', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await get(service, '/v1/messages?mode=sandbox', account.apiKey);
  assert.deepStrictEqual([res.statusCode, res.json()], [400, { message: 'Invalid request, a field has the wrong type or value', detail: 'mode must be live or test' }]);
});

test('a test key\'s webhooks carry test: true; a live key\'s carry no test field', async (t) => {
  const w = await world(t);
  const receiver = await startWebhookReceiver(t);
  await subscribe(w.service, w.account.apiKey, receiver);
  const sandboxed = (await post(w.service, '/v1/sms/send', w.testKey, smsBody())).json().messages[0].msgid as string;
  const live = (await post(w.service, '/v1/email', w.account.apiKey, emailBody())).json().to[0].msgid as string;
  await w.service.worker.drain();
  await w.service.webhooks.drain();

  assert.deepStrictEqual(receiver.received.map((e) => [e.payload.type, e.payload.data['msgid'], e.payload.data['test']]).sort(), [
    ['email.sent', live, undefined],
    ['sms.sent', sandboxed, true],
  ]);
});

test('a test key uses the account\'s email templates and sender domains', async (t) => {
  const w = await world(t);
  const made = await post(w.service, '/v1/email/templates', w.account.apiKey, { name: 'Greeting', html: '<p>Hello {{name}}</p>' });
  const res = await post(w.service, '/v1/email', w.testKey, emailBody({ body: undefined, template_id: made.json().template_id, variables: { name: 'Ana' } }));
  assert.equal(res.statusCode, 200, res.body);
  await w.service.worker.drain();
  const msgid = res.json().to[0].msgid as string;
  assert.equal((await get(w.service, `/v1/messages/${msgid}`, w.testKey)).json().status, 'sent');
});

test('a test key may not send a campaign, whose messages are live and billed: 401 API key not authorized.', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const testKey = (await post(service, '/v1/api-keys', account.apiKey, { name: 'CI', scopes: ['email'], mode: 'test' })).json().api_key as string;
  const campaign = '01900000-0000-7000-8000-000000000000';

  const byTest = await post(service, `/v1/campaigns/${campaign}/send`, testKey, {});
  const byLive = await post(service, `/v1/campaigns/${campaign}/send`, account.apiKey, {});
  assert.deepStrictEqual([byTest.statusCode, byTest.json(), byLive.statusCode], [401, { message: 'API key not authorized.' }, 404]);
});

test('an Idempotency-Key used by a test key is never replayed to a live key: test keys have their own key space, the live send is sent and billed', async (t) => {
  const w = await world(t);
  const send = (apiKey: string) => w.service.http.inject({
    method: 'POST', url: '/v1/sms/send', payload: smsBody(),
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': 'order-42' },
  });
  const first = await send(w.testKey);
  const live = await send(w.account.apiKey);

  assert.equal(first.statusCode, 200);
  assert.deepStrictEqual([live.statusCode, live.headers['idempotent-replayed']], [200, undefined]);
  assert.notEqual(live.json().messages[0].msgid, first.json().messages[0].msgid);
  assert.equal((await readAccount(w.service, w.account.id)).messagesLeft, 999);
});

test('a test key\'s messages are left out of /v1/usage', async (t) => {
  const w = await world(t);
  await post(w.service, '/v1/email', w.account.apiKey, emailBody());
  await post(w.service, '/v1/email', w.testKey, emailBody({ to: [{ email: 'bo@example.org' }] }));
  await post(w.service, '/v1/sms/send', w.testKey, smsBody());
  await w.service.worker.drain();

  const usage = (await get(w.service, '/v1/usage?days=1', w.account.apiKey)).json();
  assert.deepStrictEqual([usage.today, usage.days[0].email.accepted, usage.days[0].sms.accepted], [{ email: 1, sms: 0, whatsapp: 0 }, 1, 0]);
});

test('the OpenAPI document shows the key mode, the messages\' mode filter and the test and simulated event fields', async (t) => {
  const service = await startService(t);
  const doc = (await service.http.inject({ method: 'GET', url: '/openapi.json' })).json();
  const enumOf = (schema: { anyOf: { enum: string[] }[] }) => schema.anyOf.flatMap((s) => s.enum);
  const eventData = doc.webhooks['sms.sent'].post.requestBody.content['application/json'].schema.properties.data.properties;
  assert.deepStrictEqual({
    ownKey: enumOf(doc.paths['/v1/api-keys'].post.requestBody.content['application/json'].schema.properties.mode),
    operatorKey: enumOf(doc.paths['/admin/v1/accounts/{id}/api-keys'].post.requestBody.content['application/json'].schema.properties.mode),
    listFilter: enumOf(doc.paths['/v1/messages'].get.parameters.find((p: { name: string }) => p.name === 'mode').schema),
    events: [eventData.test.const, eventData.simulated.const],
  }, { ownKey: ['live', 'test'], operatorKey: ['live', 'test'], listFilter: ['live', 'test'], events: [true, true] });
});
