// The simulator recipients (docs/sandbox.md), through the whole service: each is sent
// with every channel's real transport configured (an SMTP relay, an SMSC, a WhatsApp
// Cloud API stand-in, all on loopback), never reaches any of them, walks through the
// real status model and posts the real signed webhooks, marked `simulated: true`, to a
// receiver that verifies their signatures.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Service } from '../../../src/service.ts';
import { listSuppressions } from '../../../src/store/suppressions.ts';
import { startCloudApiStandIn, type CloudApiStandIn } from '../../peers/whatsapp-cloud-api.ts';
import { startSmsc, type Smsc } from '../../peers/smsc.ts';
import { startSmtpSink, type SmtpSink } from '../../peers/smtp-sink.ts';
import { startWebhookReceiver, subscribe, type WebhookReceiver } from '../../peers/webhook-receiver.ts';
import { addWhatsappTemplate, emailBody, get, openAccount, post, startService, type TestAccount } from '../../support/service.ts';

const STEP_MS = 20;

interface World {
  readonly service: Service;
  readonly account: TestAccount;
  readonly receiver: WebhookReceiver;
  readonly sink: SmtpSink;
  readonly smsc: Smsc;
  readonly cloudApi: CloudApiStandIn;
}

async function world(t: TestContext): Promise<World> {
  const sink = await startSmtpSink({ starttls: false });
  t.after(() => sink.close());
  const smsc = await startSmsc();
  t.after(() => smsc.close());
  const cloudApi = await startCloudApiStandIn(t);
  const service = await startService(t, {
    worker: true,
    env: {
      HERALD_SIMULATOR_STEP_MS: String(STEP_MS),
      HERALD_EMAIL_TRANSPORT: `smtp://${sink.host}:${sink.port}`,
      HERALD_SMS_TRANSPORT: smsc.url(),
      HERALD_WHATSAPP_TRANSPORT: cloudApi.baseUrl,
    },
  });
  const receiver = await startWebhookReceiver(t);
  const account = await openAccount(service);
  await subscribe(service, account.apiKey, receiver);
  return { service, account, receiver, sink, smsc, cloudApi };
}

/** The types posted for `msgid`, once `count` arrived (and a few steps more, to see nothing follows). */
async function postedTypes(receiver: WebhookReceiver, msgid: string, count: number): Promise<string[]> {
  const mine = () => receiver.received.filter((e) => e.payload.data['msgid'] === msgid);
  const deadline = Date.now() + 10_000;
  while (mine().length < count && Date.now() < deadline) await sleep(10);
  await sleep(5 * STEP_MS);
  return mine().map((e) => e.payload.type);
}

async function statusOf(w: World, msgid: string): Promise<string> {
  return (await get(w.service, `/v1/messages/${msgid}`, w.account.apiKey)).json().status as string;
}

function assertNothingLeft(w: World): void {
  assert.deepStrictEqual([w.sink.messages.length, w.smsc.submits.length, w.cloudApi.requests.length, w.receiver.rejected.length], [0, 0, 0, 0]);
}

const EMAIL_CASES = [
  { to: 'delivered@simulator.herald.test', status: 'delivered', types: ['email.sent', 'email.delivered'] },
  { to: 'bounced@simulator.herald.test', status: 'bounced', types: ['email.sent', 'email.bounced'] },
  { to: 'deferred@simulator.herald.test', status: 'delivered', types: ['email.deferred', 'email.sent', 'email.delivered'] },
  { to: 'complained@simulator.herald.test', status: 'delivered', types: ['email.sent', 'email.delivered', 'email.complained'] },
  { to: 'unsubscribed@simulator.herald.test', status: 'delivered', types: ['email.sent', 'email.delivered', 'email.unsubscribed'] },
  { to: 'opened@simulator.herald.test', status: 'delivered', types: ['email.sent', 'email.delivered', 'email.opened'] },
  { to: 'clicked@simulator.herald.test', status: 'delivered', types: ['email.sent', 'email.delivered', 'email.opened', 'email.clicked'] },
] as const;

for (const { to, status, types } of EMAIL_CASES) {
  test(`${to} ends ${status} after posting ${types.join(', ')}, each simulated, and reaches no relay`, async (t) => {
    const w = await world(t);
    const msgid = (await post(w.service, '/v1/email', w.account.apiKey, emailBody({ to: [{ email: to }] }))).json().to[0].msgid as string;

    assert.deepStrictEqual(await postedTypes(w.receiver, msgid, types.length), types);
    assert.equal(await statusOf(w, msgid), status);
    assert.deepStrictEqual(w.receiver.received.map((e) => [e.payload.data['simulated'], e.payload.data['test'], e.payload.data['recipient']]), types.map(() => [true, undefined, to]));
    assertNothingLeft(w);
  });
}

const NUMBER_CASES = [
  { channel: 'sms', to: '+447700900100', status: 'delivered', types: ['sms.sent', 'sms.delivered'] },
  { channel: 'sms', to: '+447700900200', status: 'failed', types: ['sms.sent', 'sms.failed'] },
  { channel: 'whatsapp', to: '+447700900100', status: 'delivered', types: ['whatsapp.sent', 'whatsapp.delivered'] },
  { channel: 'whatsapp', to: '+447700900200', status: 'failed', types: ['whatsapp.sent', 'whatsapp.failed'] },
  { channel: 'whatsapp', to: '+447700900300', status: 'delivered', types: ['whatsapp.sent', 'whatsapp.delivered', 'whatsapp.read'] },
] as const;

for (const { channel, to, status, types } of NUMBER_CASES) {
  test(`${channel} to ${to} ends ${status} after posting ${types.join(', ')}, each simulated, and reaches no peer`, async (t) => {
    const w = await world(t);
    let msgid: string;
    if (channel === 'sms') {
      msgid = (await post(w.service, '/v1/sms/send', w.account.apiKey, { message: 'Your code is 1234', mobile_numbers: [to] })).json().messages[0].msgid as string;
    } else {
      const template = await addWhatsappTemplate(w.service, w.account.id);
      msgid = (await post(w.service, '/v1/whatsapp/sendTemplateMessage', w.account.apiKey, { destination: to, templateId: template.id, params: ['Ana', '1234'] })).json().msgid as string;
    }

    assert.deepStrictEqual(await postedTypes(w.receiver, msgid, types.length), types);
    assert.equal(await statusOf(w, msgid), status);
    assert.ok(w.receiver.received.every((e) => e.payload.data['simulated'] === true));
    assertNothingLeft(w);
  });
}

test('a simulated hard bounce suppresses the address as a real one does: the next send to it is dropped', async (t) => {
  const w = await world(t);
  const to = 'bounced+signup@simulator.herald.test';
  const first = (await post(w.service, '/v1/email', w.account.apiKey, emailBody({ to: [{ email: to }] }))).json().to[0].msgid as string;
  await postedTypes(w.receiver, first, 2);

  const again = (await post(w.service, '/v1/email', w.account.apiKey, emailBody({ to: [{ email: to }] }))).json().to[0].msgid as string;

  assert.deepStrictEqual(await postedTypes(w.receiver, again, 1), ['email.dropped']);
  assert.deepStrictEqual((await listSuppressions(w.service.deps.db, w.account.id, { limit: 10 })).map((s) => [s.address, s.reason, s.messageId]), [[to, 'bounced', first]]);
});

test('a simulated bounce posts the bounce details a receiver reads, with the message\'s fields', async (t) => {
  const w = await world(t);
  const to = 'bounced@simulator.herald.test';
  const msgid = (await post(w.service, '/v1/email', w.account.apiKey, emailBody({ to: [{ email: to }] }))).json().to[0].msgid as string;
  await postedTypes(w.receiver, msgid, 2);

  const bounce = w.receiver.received.find((e) => e.payload.type === 'email.bounced');
  assert.deepStrictEqual({ ...bounce?.payload.data }, {
    bounce_type: 'hard', status_code: '5.1.1', diagnostic: 'smtp; 550 5.1.1 The email account does not exist (simulated)', source: 'simulator',
    msgid, account: w.account.id, channel: 'email', recipient: to, family: 'transactional', simulated: true, tracking: { opens: true, clicks: true },
  });
});

test('a simulated click follows the email\'s first link', async (t) => {
  const w = await world(t);
  const body = emailBody({ to: [{ email: 'clicked@simulator.herald.test' }], body: '<p>Hi, <a href="https://example.com/welcome?step=1">start here</a></p>' });
  const msgid = (await post(w.service, '/v1/email', w.account.apiKey, body)).json().to[0].msgid as string;
  await postedTypes(w.receiver, msgid, 4);

  const click = w.receiver.received.find((e) => e.payload.type === 'email.clicked');
  assert.deepStrictEqual([click?.payload.data['url'], click?.payload.data['machine']], ['https://example.com/welcome?step=1', false]);
});

test('an ordinary recipient beside a simulator one still goes to the configured relay, unmarked', async (t) => {
  const w = await world(t);
  const res = (await post(w.service, '/v1/email', w.account.apiKey, emailBody({ to: [{ email: 'ana@example.org' }, { email: 'delivered@simulator.herald.test' }] }))).json();
  const real = res.to[0].msgid as string;

  assert.deepStrictEqual(await postedTypes(w.receiver, real, 1), ['email.sent']);
  assert.deepStrictEqual(w.sink.messages.map((m) => m.rcptTo), [['ana@example.org']]);
  assert.equal(w.receiver.received.find((e) => e.payload.data['msgid'] === real)?.payload.data['simulated'], undefined);
});
