// Fallback across channels, paid once (issue 25, item 4; docs/fallback.md): a WhatsApp
// template send names an SMS leg that goes when the WhatsApp message is not delivered in
// time, or fails; the leg is debited at acceptance and refunded when it never goes.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { releaseFallbackLegs } from '../../src/app/fallback-release.ts';
import { waitingLegsAfter } from '../../src/store/fallback-legs.ts';
import { listLedger } from '../../src/store/ledger.ts';
import type { Service } from '../../src/service.ts';
import { metaErrorBody, postWebhook, startCloudApiStandIn, statusWebhook, type CloudApiStandIn } from '../peers/whatsapp-cloud-api.ts';
import { startSmsc, type Smsc } from '../peers/smsc.ts';
import { startSmtpSink } from '../peers/smtp-sink.ts';
import { startWebhookReceiver, subscribe, type WebhookReceiver } from '../peers/webhook-receiver.ts';
import { addWhatsappTemplate, emailBody, get, openAccount, post, readAccount, send, sharedStore, startService, startServiceOn, UUID, type TestAccount } from '../support/service.ts';

const APP_SECRET = 'meta-app-secret-0123456789';
const PHONE_NUMBER_ID = '106540352242922';
const DESTINATION = '5215512345678';
const SMS_LEG = { channel: 'sms', after: '2s', message: { message: 'Your code is 1234' } };

interface World {
  readonly service: Service;
  readonly account: TestAccount;
  readonly templateId: string;
  readonly smsc: Smsc;
  readonly cloudApi: CloudApiStandIn;
  readonly receiver: WebhookReceiver;
  /** The service's clock (near the real time, so the receiver's timestamp check passes). */
  readonly now: { value: number };
}

/** A service whose WhatsApp goes to a Cloud API stand-in and SMS to an SMSC stand-in, an account subscribed to webhooks, and a template. */
async function world(t: TestContext, account: Parameters<typeof openAccount>[1] = {}): Promise<World> {
  const smsc = await startSmsc();
  t.after(() => smsc.close());
  const cloudApi = await startCloudApiStandIn(t);
  const now = { value: Date.now() };
  const service = await startService(t, {
    clock: () => now.value,
    env: { HERALD_SMS_TRANSPORT: smsc.url(), HERALD_WHATSAPP_TRANSPORT: cloudApi.baseUrl, HERALD_WHATSAPP_APP_SECRET: APP_SECRET },
  });
  const opened = await openAccount(service, {
    balance: 50_000, whatsappPrice: 1_000, messagesLeft: 10, whatsappPhoneNumberId: PHONE_NUMBER_ID, whatsappAccessToken: 'EAAG-token', ...account,
  });
  const receiver = await startWebhookReceiver(t);
  await subscribe(service, opened.apiKey, receiver);
  const template = await addWhatsappTemplate(service, opened.id);
  return { service, account: opened, templateId: template.id, smsc, cloudApi, receiver, now };
}

function sendWithFallback(w: World, fallback: unknown = [SMS_LEG], apiKey = w.account.apiKey) {
  return post(w.service, '/v1/whatsapp/sendTemplateMessage', apiKey, { destination: DESTINATION, templateId: w.templateId, params: ['Ana', '1234'], fallback });
}

/** The account's ledger after its opening entry: [reason, messages, balance]. */
async function ledgerAfterOpening(w: World): Promise<[string, number, number][]> {
  return (await listLedger(w.service.deps.db, w.account.id)).slice(1).map((e) => [e.reason, e.messagesDelta, e.balanceDelta]);
}

const turn = (w: World) => releaseFallbackLegs(w.service.deps);

test('a WhatsApp send with an SMS fallback is answered with both legs\' msgids, both debited at once', async (t) => {
  const w = await world(t);
  const res = await sendWithFallback(w);
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  assert.match(body.msgid, UUID);
  assert.match(body.fallback.chain_id, UUID);
  const smsMsgid: string = body.fallback.legs[1].msgid;
  assert.match(smsMsgid, UUID);
  assert.deepStrictEqual(body, {
    result: 'WhatsApp message queued for delivery', current_balance: 4.9, msgid: body.msgid,
    fallback: { chain_id: body.fallback.chain_id, legs: [{ leg: 1, channel: 'whatsapp', msgid: body.msgid }, { leg: 2, channel: 'sms', msgid: smsMsgid, after: '2s' }] },
  });
  assert.deepStrictEqual(await ledgerAfterOpening(w), [['whatsapp.send', 0, -1_000], ['sms.send', -1, 0]]);
  const account = await readAccount(w.service, w.account.id);
  assert.deepStrictEqual([account.balance, account.messagesLeft], [49_000, 9]);
});

test('with no delivery reported in time, the SMS goes after the delay and nothing is refunded', async (t) => {
  const w = await world(t);
  const body = (await sendWithFallback(w)).json();
  const smsMsgid: string = body.fallback.legs[1].msgid;
  await w.service.worker.drain();
  assert.equal(w.cloudApi.requests.length, 1);

  w.now.value += 1_999;
  assert.deepStrictEqual(await turn(w), { released: 0, cancelled: 0 });
  w.now.value += 1;
  assert.deepStrictEqual(await turn(w), { released: 1, cancelled: 0 });
  await w.service.worker.drain();

  assert.deepStrictEqual(w.smsc.submits.map((s) => [s.destinationAddr, s.septets.toString('latin1')]), [[DESTINATION, 'Your code is 1234']]);
  assert.deepStrictEqual(await ledgerAfterOpening(w), [['whatsapp.send', 0, -1_000], ['sms.send', -1, 0]]);
  const account = await readAccount(w.service, w.account.id);
  assert.deepStrictEqual([account.balance, account.messagesLeft], [49_000, 9]);
  const view = (await get(w.service, `/v1/messages/${body.msgid}`, w.account.apiKey)).json();
  assert.deepStrictEqual(view.fallback, {
    chain_id: body.fallback.chain_id,
    legs: [
      { leg: 1, channel: 'whatsapp', msgid: body.msgid, state: 'released', status: 'sent' },
      { leg: 2, channel: 'sms', msgid: smsMsgid, state: 'released', status: 'sent' },
    ],
  });
  assert.deepStrictEqual((await get(w.service, `/v1/messages/${smsMsgid}`, w.account.apiKey)).json().fallback, view.fallback);
});

test('each leg\'s webhook events carry the chain, its leg and the number of legs', async (t) => {
  const w = await world(t);
  const body = (await sendWithFallback(w)).json();
  await w.service.worker.drain();
  w.now.value += 2_000;
  await turn(w);
  await w.service.worker.drain();
  await w.service.webhooks.drain();

  const chain = body.fallback.chain_id;
  assert.deepStrictEqual(w.receiver.received.map((r) => [r.payload.type, r.payload.data['msgid'], r.payload.data['fallback']]), [
    ['whatsapp.sent', body.msgid, { chain_id: chain, leg: 1, legs: 2 }],
    ['sms.sent', body.fallback.legs[1].msgid, { chain_id: chain, leg: 2, legs: 2 }],
  ]);
});

test('with delivery reported in time, the SMS never goes and its reservation is refunded', async (t) => {
  const w = await world(t);
  const body = (await sendWithFallback(w)).json();
  await w.service.worker.drain();
  w.now.value += 1_000;
  const delivered = statusWebhook(PHONE_NUMBER_ID, { id: 'wamid.1', status: 'delivered', timestamp: Math.floor(w.now.value / 1000), recipient: DESTINATION });
  assert.equal((await postWebhook(w.service, delivered, { appSecret: APP_SECRET })).statusCode, 200);

  assert.deepStrictEqual(await turn(w), { released: 0, cancelled: 1 });
  w.now.value += 60_000;
  assert.deepStrictEqual(await turn(w), { released: 0, cancelled: 0 });
  await w.service.worker.drain();

  assert.deepStrictEqual(w.smsc.submits, []);
  assert.deepStrictEqual(await ledgerAfterOpening(w), [['whatsapp.send', 0, -1_000], ['sms.send', -1, 0], ['refund', 1, 0]]);
  const ledger = await listLedger(w.service.deps.db, w.account.id);
  assert.equal(ledger.at(-1)?.sendId, ledger.at(-2)?.sendId);
  const account = await readAccount(w.service, w.account.id);
  assert.deepStrictEqual([account.balance, account.messagesLeft], [49_000, 10]);
  const view = (await get(w.service, `/v1/messages/${body.msgid}`, w.account.apiKey)).json();
  assert.deepStrictEqual(view.fallback.legs.map((l: { state: string; status: string | null }) => [l.state, l.status]), [['released', 'delivered'], ['cancelled', null]]);
  assert.equal((await get(w.service, `/v1/messages/${body.fallback.legs[1].msgid}`, w.account.apiKey)).statusCode, 404);
});

/** A WhatsApp send with its SMS leg, scheduled `inMs` from the service's now. */
function scheduledWithFallback(w: World, inMs: number) {
  return post(w.service, '/v1/whatsapp/sendTemplateMessage', w.account.apiKey, {
    destination: DESTINATION, templateId: w.templateId, params: ['Ana', '1234'], fallback: [SMS_LEG], send_at: new Date(w.now.value + inMs).toISOString(),
  });
}

test('a scheduled send\'s fallback leg counts its delay from the send time, not from the acceptance', async (t) => {
  const w = await world(t);
  w.now.value = Math.ceil(w.now.value / 1000) * 1000;
  const body = (await scheduledWithFallback(w, 60_000)).json();
  w.now.value += 60_000 + 1_999;
  await w.service.worker.drain();
  assert.equal(w.cloudApi.requests.length, 1);
  assert.deepStrictEqual(await turn(w), { released: 0, cancelled: 0 });
  w.now.value += 1;
  assert.deepStrictEqual(await turn(w), { released: 1, cancelled: 0 });
  await w.service.worker.drain();
  assert.deepStrictEqual(w.smsc.submits.map((s) => s.destinationAddr), [DESTINATION]);
  assert.equal((await get(w.service, `/v1/messages/${body.fallback.legs[1].msgid}`, w.account.apiKey)).json().status, 'sent');
});

test('cancelling a scheduled send cancels its fallback leg, and both are refunded', async (t) => {
  const w = await world(t);
  const body = (await scheduledWithFallback(w, 60_000)).json();
  assert.equal((await send(w.service, 'DELETE', `/v1/messages/${body.msgid}/schedule`, w.account.apiKey)).statusCode, 200);
  assert.deepStrictEqual(await turn(w), { released: 0, cancelled: 1 });
  w.now.value += 120_000;
  assert.deepStrictEqual(await turn(w), { released: 0, cancelled: 0 });
  await w.service.worker.drain();
  assert.deepStrictEqual([w.cloudApi.requests.length, w.smsc.submits.length], [0, 0]);
  assert.deepStrictEqual(await ledgerAfterOpening(w), [['whatsapp.send', 0, -1_000], ['sms.send', -1, 0], ['refund', 0, 1_000], ['refund', 1, 0]]);
  const account = await readAccount(w.service, w.account.id);
  assert.deepStrictEqual([account.balance, account.messagesLeft], [50_000, 10]);
});

test('a scheduled send moved later takes its fallback leg\'s time with it', async (t) => {
  const w = await world(t);
  w.now.value = Math.ceil(w.now.value / 1000) * 1000;
  const body = (await scheduledWithFallback(w, 60_000)).json();
  const moved = await send(w.service, 'PATCH', `/v1/messages/${body.msgid}/schedule`, w.account.apiKey, { send_at: new Date(w.now.value + 600_000).toISOString() });
  assert.equal(moved.statusCode, 200, moved.body);
  w.now.value += 62_000;
  assert.deepStrictEqual(await turn(w), { released: 0, cancelled: 0 });
  w.now.value += 600_000 - 62_000 + 1_999;
  assert.deepStrictEqual(await turn(w), { released: 0, cancelled: 0 });
  await w.service.worker.drain();
  assert.deepStrictEqual([w.cloudApi.requests.length, w.smsc.submits.length], [1, 0]);
  w.now.value += 1;
  assert.deepStrictEqual(await turn(w), { released: 1, cancelled: 0 });
});

test('a failed first leg releases the SMS at once: the Cloud API refusing the WhatsApp message', async (t) => {
  const w = await world(t);
  w.cloudApi.answer({ kind: 'error', status: 400, body: metaErrorBody(131026, 'Message undeliverable') });
  const body = (await sendWithFallback(w)).json();
  await w.service.worker.drain();
  assert.equal((await get(w.service, `/v1/messages/${body.msgid}`, w.account.apiKey)).json().status, 'failed');

  assert.deepStrictEqual(await turn(w), { released: 1, cancelled: 0 });
  await w.service.worker.drain();

  assert.equal(w.smsc.submits.length, 1);
  // Meta answered: the WhatsApp message left the house, so it is not refunded; the SMS went, so neither is it.
  assert.deepStrictEqual(await ledgerAfterOpening(w), [['whatsapp.send', 0, -1_000], ['sms.send', -1, 0]]);
  const account = await readAccount(w.service, w.account.id);
  assert.deepStrictEqual([account.balance, account.messagesLeft], [49_000, 9]);
});

test('two turns at once release a leg once', async (t) => {
  const w = await world(t);
  const body = (await sendWithFallback(w)).json();
  await w.service.worker.drain();
  w.now.value += 2_000;

  const turns = await Promise.all([turn(w), turn(w)]);

  assert.equal(turns[0].released + turns[1].released, 1);
  await w.service.worker.drain();
  assert.equal(w.smsc.submits.length, 1);
  assert.equal((await get(w.service, `/v1/messages/${body.fallback.legs[1].msgid}`, w.account.apiKey)).json().status, 'sent');
});

test('a chain the account cannot pay for whole is refused, and nothing is debited', async (t) => {
  const w = await world(t, { messagesLeft: 0 });
  const res = await sendWithFallback(w);
  assert.deepStrictEqual([res.statusCode, res.json()], [401, { message: 'No messages left, please buy more messages' }]);
  assert.deepStrictEqual(await ledgerAfterOpening(w), []);
  assert.equal((await readAccount(w.service, w.account.id)).balance, 50_000);
});

test('a fallback leg is checked as its own send would be: a bad after, channel or message is refused with 400 naming the field', async (t) => {
  const w = await world(t);
  const INVALID = 'Invalid request, a field has the wrong type or value';
  const answers = [];
  for (const fallback of [
    [{ ...SMS_LEG, after: '25h' }],
    [{ ...SMS_LEG, after: '0s' }],
    [{ ...SMS_LEG, channel: 'email' }],
    [SMS_LEG, SMS_LEG],
    'sms',
    [{ ...SMS_LEG, message: 'text' }],
    [{ ...SMS_LEG, message: { message: 'Your code is 1234', mobile_numbers: ['+34600111222', '+34600111333'] } }],
  ]) {
    const res = await sendWithFallback(w, fallback);
    answers.push([res.statusCode, res.json()]);
  }
  assert.deepStrictEqual(answers, [
    [400, { message: INVALID, detail: 'fallback[0].after must be a duration such as 30s, 10m or 1h, from 1s to 24h' }],
    [400, { message: INVALID, detail: 'fallback[0].after must be a duration such as 30s, 10m or 1h, from 1s to 24h' }],
    [400, { message: INVALID, detail: 'fallback[0].channel must be "sms"' }],
    [400, { message: INVALID, detail: 'fallback must be a list of 1 to 1 legs' }],
    [400, { message: INVALID, detail: 'fallback must be a list of 1 to 1 legs' }],
    [400, { message: INVALID, detail: 'fallback[0].message must be an object: the body of the leg\'s own send' }],
    [400, { message: INVALID, detail: 'fallback[0].message.mobile_numbers must hold one number' }],
  ]);
  const missing = await sendWithFallback(w, [{ ...SMS_LEG, message: { message: ' ' } }]);
  assert.deepStrictEqual([missing.statusCode, missing.json()], [400, { message: 'Message missing or empty!' }]);
  assert.deepStrictEqual(await ledgerAfterOpening(w), []);
});

test('a chain sent with a test key stays in the sandbox and is never billed', async (t) => {
  const w = await world(t);
  const made = await post(w.service, '/v1/api-keys', w.account.apiKey, { name: 'CI', scopes: ['sms', 'whatsapp'], mode: 'test' });
  const testKey: string = made.json().api_key;
  const body = (await sendWithFallback(w, [SMS_LEG], testKey)).json();
  await w.service.worker.drain();
  w.now.value += 2_000;
  assert.deepStrictEqual(await turn(w), { released: 1, cancelled: 0 });
  await w.service.worker.drain();

  assert.deepStrictEqual([w.cloudApi.requests.length, w.smsc.submits.length], [0, 0]);
  assert.deepStrictEqual(await ledgerAfterOpening(w), []);
  const sms = (await get(w.service, `/v1/messages/${body.fallback.legs[1].msgid}`, testKey)).json();
  assert.deepStrictEqual([sms.status, sms.mode], ['sent', 'test']);
});

test('a failed status reported by WhatsApp after the send releases the SMS at once', async (t) => {
  const w = await world(t);
  const body = (await sendWithFallback(w)).json();
  await w.service.worker.drain();
  const failed = statusWebhook(PHONE_NUMBER_ID, {
    id: 'wamid.1', status: 'failed', timestamp: Math.floor(w.now.value / 1000), recipient: DESTINATION,
    errors: [{ code: 131026, title: 'Message undeliverable', message: 'Message undeliverable' }],
  });
  assert.equal((await postWebhook(w.service, failed, { appSecret: APP_SECRET })).statusCode, 200);

  assert.deepStrictEqual(await turn(w), { released: 1, cancelled: 0 });
  await w.service.worker.drain();
  assert.equal(w.smsc.submits.length, 1);
  const view = (await get(w.service, `/v1/messages/${body.msgid}`, w.account.apiKey)).json();
  assert.deepStrictEqual(view.fallback.legs.map((l: { state: string; status: string | null }) => [l.state, l.status]), [['released', 'failed'], ['released', 'sent']]);
});

test('a waiting leg outlives a restart, and the next process releases it', async (t) => {
  const store = await sharedStore(t);
  const now = { value: Date.now() };
  const first = await startServiceOn(t, store, { clock: () => now.value });
  const account = await openAccount(first, { balance: 50_000, whatsappPrice: 1_000, messagesLeft: 10 });
  const template = await addWhatsappTemplate(first, account.id);
  const body = (await post(first, '/v1/whatsapp/sendTemplateMessage', account.apiKey, {
    destination: DESTINATION, templateId: template.id, params: ['Ana', '1234'], fallback: [SMS_LEG],
  })).json();
  await first.close();

  const second = await startServiceOn(t, store, { clock: () => now.value });
  now.value += 2_000;
  assert.deepStrictEqual(await releaseFallbackLegs(second.deps), { released: 1, cancelled: 0 });
  await second.worker.drain();
  assert.equal((await get(second, `/v1/messages/${body.fallback.legs[1].msgid}`, account.apiKey)).json().status, 'sent');
});

test('the scan of waiting legs reads a slice at a time, each after the last', async (t) => {
  const w = await world(t);
  const legs: string[] = [];
  for (let i = 0; i < 3; i++) {
    legs.push((await sendWithFallback(w)).json().fallback.legs[1].msgid);
    w.now.value += 1;
  }
  const first = await waitingLegsAfter(w.service.deps.db, undefined, 2);
  const last = first.at(-1);
  assert.ok(last !== undefined);
  const second = await waitingLegsAfter(w.service.deps.db, last, 2);
  assert.deepStrictEqual([first.map((l) => [l.id, l.previousStatus]), second.map((l) => [l.id, l.previousStatus])], [
    [[legs[0], 'queued'], [legs[1], 'queued']], [[legs[2], 'queued']],
  ]);
});

test('a process that delivers runs the fallback job: a late WhatsApp message\'s SMS goes by itself', async (t) => {
  const service = await startService(t, { worker: true });
  const account = await openAccount(service, { balance: 50_000, whatsappPrice: 1_000, messagesLeft: 10 });
  const template = await addWhatsappTemplate(service, account.id);
  const body = (await post(service, '/v1/whatsapp/sendTemplateMessage', account.apiKey, {
    destination: DESTINATION, templateId: template.id, params: ['Ana', '1234'], fallback: [{ ...SMS_LEG, after: '1s' }],
  })).json();
  // The job's own timer (every second) on the real clock: looked at until it has gone, at most 10 s.
  const smsMsgid: string = body.fallback.legs[1].msgid;
  let status: number | undefined;
  for (const deadline = Date.now() + 10_000; Date.now() < deadline && status !== 200;) {
    status = (await get(service, `/v1/messages/${smsMsgid}`, account.apiKey)).statusCode;
    if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal(status, 200);
});

/** A service whose email goes to a relay on loopback (its 250 counted as delivery with `delivered`) and SMS to an SMSC stand-in. */
async function emailWorld(t: TestContext, query = '') {
  const sink = await startSmtpSink({ starttls: false });
  t.after(() => sink.close());
  const smsc = await startSmsc();
  t.after(() => smsc.close());
  const now = { value: Date.now() };
  const service = await startService(t, { clock: () => now.value, env: { HERALD_EMAIL_TRANSPORT: `smtp://${sink.host}:${sink.port}${query}`, HERALD_SMS_TRANSPORT: smsc.url() } });
  const account = await openAccount(service, { messagesLeft: 10 });
  const send = (body: Record<string, unknown> = {}) => post(service, '/v1/email', account.apiKey, emailBody({ fallback: [EMAIL_SMS_LEG], ...body }));
  return { service, account, sink, smsc, now, send };
}

const EMAIL_SMS_LEG = { channel: 'sms', after: '2s', message: { message: 'Your invoice is ready', mobile_numbers: ['+34600111222'] } };

test('an email the relay took but nobody confirmed is followed by its SMS after the delay', async (t) => {
  const w = await emailWorld(t);
  const res = await w.send();
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  assert.deepStrictEqual(body, {
    message: 'Email queued for delivery', to: [{ email: 'ana@example.org', msgid: body.to[0].msgid }],
    fallback: { chain_id: body.fallback.chain_id, legs: [{ leg: 1, channel: 'email', msgid: body.to[0].msgid }, { leg: 2, channel: 'sms', msgid: body.fallback.legs[1].msgid, after: '2s' }] },
  });
  await w.service.worker.drain();
  assert.equal(w.sink.messages.length, 1);

  w.now.value += 2_000;
  assert.deepStrictEqual(await releaseFallbackLegs(w.service.deps), { released: 1, cancelled: 0 });
  await w.service.worker.drain();
  assert.deepStrictEqual(w.smsc.submits.map((s) => s.destinationAddr), ['34600111222']);
  assert.deepStrictEqual((await listLedger(w.service.deps.db, w.account.id)).slice(1).map((e) => [e.reason, e.messagesDelta]), [['email.send', -1], ['sms.send', -1]]);
});

test('an email delivered in time cancels its SMS, and the SMS is refunded', async (t) => {
  const w = await emailWorld(t, '?delivered=accepted');
  const body = (await w.send()).json();
  await w.service.worker.drain();
  assert.equal((await get(w.service, `/v1/messages/${body.to[0].msgid}`, w.account.apiKey)).json().status, 'delivered');

  assert.deepStrictEqual(await releaseFallbackLegs(w.service.deps), { released: 0, cancelled: 1 });
  assert.deepStrictEqual(w.smsc.submits, []);
  assert.deepStrictEqual((await listLedger(w.service.deps.db, w.account.id)).slice(1).map((e) => [e.reason, e.messagesDelta]), [['email.send', -1], ['sms.send', -1], ['refund', 1]]);
  assert.equal((await readAccount(w.service, w.account.id)).messagesLeft, 9);
});

test('an email with a fallback goes to one recipient, and its SMS names its number', async (t) => {
  const w = await emailWorld(t);
  const two = await w.send({ to: [{ email: 'ana@example.org' }, { email: 'bob@example.org' }] });
  const noNumber = await w.send({ fallback: [SMS_LEG] });
  assert.deepStrictEqual([two.statusCode, two.json(), noNumber.statusCode, noNumber.json()], [
    400, { message: 'Invalid request, a field has the wrong type or value', detail: 'fallback: an email with a fallback goes to one recipient (one to, no cc or bcc)' },
    400, { message: 'Mobile numbers missing or empty!' },
  ]);
});

const SMS_EMAIL_LEG = {
  channel: 'email', after: '2s',
  message: { to: [{ email: 'ana@example.org' }], from: { email: 'news@example.com', name: 'Example News' }, replyTo: { email: 'help@example.com', name: 'Help' }, subject: 'Your code', body: 'Your code is 1234' },
};

test('an SMS not delivered in time is followed by its email, and its answer counts both debits', async (t) => {
  const w = await emailWorld(t);
  const res = await post(w.service, '/v1/sms/send', w.account.apiKey, { message: 'Your code is 1234', mobile_numbers: ['+34600111222'], fallback: [SMS_EMAIL_LEG] });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  const smsMsgid: string = body.messages[0].msgid;
  assert.deepStrictEqual(body, {
    result: 'SMS queued for delivery', total_contacts: 1, total_messages_sent: 1, messages_left: 8, messages: [{ mobile_number: '+34600111222', msgid: smsMsgid }],
    fallback: { chain_id: body.fallback.chain_id, legs: [{ leg: 1, channel: 'sms', msgid: smsMsgid }, { leg: 2, channel: 'email', msgid: body.fallback.legs[1].msgid, after: '2s' }] },
  });
  await w.service.worker.drain();
  assert.equal(w.smsc.submits.length, 1);

  w.now.value += 2_000;
  assert.deepStrictEqual(await releaseFallbackLegs(w.service.deps), { released: 1, cancelled: 0 });
  await w.service.worker.drain();
  assert.deepStrictEqual(w.sink.messages.map((m) => m.rcptTo), [['ana@example.org']]);
  assert.deepStrictEqual((await listLedger(w.service.deps.db, w.account.id)).slice(1).map((e) => [e.reason, e.messagesDelta]), [['sms.send', -1], ['email.send', -1]]);
});

test('an SMS delivered in time cancels its email, and the email is refunded', async (t) => {
  const w = await emailWorld(t);
  await post(w.service, '/v1/sms/send', w.account.apiKey, { message: 'Your code is 1234', mobile_numbers: ['+34600111222'], fallback: [SMS_EMAIL_LEG] });
  await w.service.worker.drain();
  await w.smsc.sendReceipt(w.smsc.submits[0]?.messageId ?? '', 'DELIVRD');
  await w.service.worker.drain();

  assert.deepStrictEqual(await releaseFallbackLegs(w.service.deps), { released: 0, cancelled: 1 });
  assert.deepStrictEqual(w.sink.messages, []);
  assert.deepStrictEqual((await listLedger(w.service.deps.db, w.account.id)).slice(1).map((e) => [e.reason, e.messagesDelta]), [['sms.send', -1], ['email.send', -1], ['refund', 1]]);
});

test('an SMS with a fallback goes to one number, and its email leg is checked as POST /v1/email checks it', async (t) => {
  const w = await emailWorld(t);
  const sms = (fallback: unknown, numbers = ['+34600111222']) => post(w.service, '/v1/sms/send', w.account.apiKey, { message: 'Your code is 1234', mobile_numbers: numbers, fallback });
  const answers = [];
  for (const [fallback, numbers] of [
    [[SMS_EMAIL_LEG], ['+34600111222', '+34600111333']],
    [[{ ...SMS_EMAIL_LEG, message: { ...SMS_EMAIL_LEG.message, from: { email: 'news@elsewhere.com', name: 'X' } } }], undefined],
    [[{ ...SMS_EMAIL_LEG, message: { ...SMS_EMAIL_LEG.message, to: [{ email: 'ana@example.org' }, { email: 'bob@example.org' }] } }], undefined],
    [[{ ...SMS_EMAIL_LEG, message: { ...SMS_EMAIL_LEG.message, fallback: [] } }], undefined],
  ] as const) {
    const res = await sms(fallback, numbers === undefined ? undefined : [...numbers]);
    answers.push([res.statusCode, res.json()]);
  }
  const INVALID = 'Invalid request, a field has the wrong type or value';
  assert.deepStrictEqual(answers, [
    [400, { message: INVALID, detail: 'fallback: an SMS with a fallback goes to one number' }],
    [401, { message: 'Domain not permitted. err 2' }],
    [400, { message: INVALID, detail: 'fallback[0].message: the email goes to one recipient (one to, no cc or bcc)' }],
    [400, { message: INVALID, detail: 'fallback[0].message may not name a fallback of its own' }],
  ]);
  assert.deepStrictEqual((await listLedger(w.service.deps.db, w.account.id)).slice(1), []);
});
