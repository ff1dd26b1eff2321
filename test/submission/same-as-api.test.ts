// A message submitted by SMTP is delivered as the API's: one message by SMTP (nodemailer,
// loopback, no certificate) and one by POST /v1/email, the same content to the same
// recipient, relayed by herald's SMTP transport to a loopback peer. Both come out with
// the same events in the same order, the same webhooks, the same tagged envelope, and a
// DKIM signature of the sender domain that verifies at the peer (mailauth, the key
// published in a loopback DNS server).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import nodemailer from 'nodemailer';
import { createAccount } from '../../src/app/create-account.ts';
import type { Service } from '../../src/service.ts';
import { startSmtpSink, type SmtpSink } from '../peers/smtp-sink.ts';
import { startWebhookReceiver, subscribe, type WebhookReceiver } from '../peers/webhook-receiver.ts';
import { dkimSignedExampleCom, type DkimResolver } from '../support/dkim-domain.ts';
import { get, post, startService, type TestAccount } from '../support/service.ts';
import { verpOf } from '../support/verp.ts';

const FROM = { email: 'news@example.com', name: 'Example News' };
const REPLY_TO = { email: 'help@example.com', name: 'Help' };
const TO = 'ana@example.org';
const SUBJECT = 'Your order has shipped';
const HTML = '<p>Hi Ana, your order has shipped. <a href="https://shop.example.com/orders/42">Track it</a>.</p>';

interface World {
  readonly service: Service;
  readonly sink: SmtpSink;
  readonly receiver: WebhookReceiver;
  readonly account: TestAccount;
  readonly resolver: DkimResolver;
  readonly submissionPort: number;
}

/**
 * A service (on the real clock: the webhook consumer checks signatures' timestamps against
 * it) relaying to a loopback SMTP peer, with submission on loopback, and an account whose
 * example.com DKIM key is published in a loopback DNS server and whose webhook posts to a
 * loopback consumer.
 */
async function startWorld(t: TestContext): Promise<World> {
  const sink = await startSmtpSink({ starttls: false });
  t.after(() => sink.close());
  const service = await startService(t, {
    env: {
      HERALD_EMAIL_TRANSPORT: `smtp://${sink.host}:${sink.port}`, HERALD_PUBLIC_URL: 'https://herald.example.com', HERALD_BOUNCE_DOMAIN: 'bounces.herald.example.com',
      HERALD_SUBMISSION_PORT: '0', HERALD_SUBMISSION_HOST: '127.0.0.1',
    },
  });
  const { account, apiKey } = await createAccount(service.deps, { name: 'acme', messagesLeft: 100, rateLimitPerSecond: 100 });
  const resolver = await dkimSignedExampleCom(t, service, account.id, service.deps.clock());
  const receiver = await startWebhookReceiver(t);
  await subscribe(service, apiKey.apiKey, receiver);
  const submissionPort = service.submission?.starttlsPort;
  assert.ok(submissionPort !== undefined);
  return { service, sink, receiver, account: { id: account.id, apiKey: apiKey.apiKey }, resolver, submissionPort };
}

/** The message by SMTP: nodemailer on loopback (AUTH without TLS is offered there); its msgid from the 250. */
async function submitBySmtp(world: World): Promise<string> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1', port: world.submissionPort, secure: false, ignoreTLS: true, auth: { user: 'apikey', pass: world.account.apiKey }, logger: false,
  });
  try {
    const info = await transport.sendMail({ from: { name: FROM.name, address: FROM.email }, replyTo: { name: REPLY_TO.name, address: REPLY_TO.email }, to: TO, subject: SUBJECT, html: HTML });
    const msgid = /^250 2\.0\.0 Ok: queued as ([0-9a-f-]{36})$/.exec(info.response)?.[1];
    assert.ok(msgid !== undefined, info.response);
    return msgid;
  } finally {
    transport.close();
  }
}

/** The same message by POST /v1/email; its msgid. */
async function sendByApi(world: World): Promise<string> {
  const res = await post(world.service, '/v1/email', world.account.apiKey, { from: FROM, replyTo: REPLY_TO, to: [{ email: TO }], subject: SUBJECT, body: HTML });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { to: { msgid: string }[] }).to[0]!.msgid;
}

/** Both messages sent, delivered to the peer, and their webhooks posted. */
async function sendBoth(world: World): Promise<{ smtp: string; api: string }> {
  const smtp = await submitBySmtp(world);
  const api = await sendByApi(world);
  await world.service.worker.drain();
  await world.service.webhooks.drain();
  return { smtp, api };
}

/** The message's events as GET /v1/messages/:msgid shows them, without their times. */
async function eventsOf(world: World, msgid: string): Promise<Record<string, unknown>[]> {
  const res = await get(world.service, `/v1/messages/${msgid}`, world.account.apiKey);
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { events: Record<string, unknown>[] }).events.map(({ at: _at, ...event }) => event);
}

/** The webhooks posted about a message: type and data, without the msgid that tells them apart. */
const webhooksOf = (world: World, msgid: string): { type: string; data: Record<string, unknown> }[] =>
  world.receiver.received.filter((e) => e.payload.data['msgid'] === msgid).map((e) => {
    const { msgid: _msgid, ...data } = e.payload.data;
    return { type: e.payload.type, data };
  });

/** What the peer received for a message: found by the tagged envelope sender herald wrote for it. */
function receivedFor(world: World, msgid: string): { rcptTo: readonly string[]; raw: Buffer } {
  const found = world.sink.messages.filter((m) => m.mailFrom === verpOf(world.service, msgid));
  assert.equal(found.length, 1, `one message at the peer from ${verpOf(world.service, msgid)}`);
  return found[0]!;
}

test('a message by SMTP and the same by the API get the same events in the same order', async (t) => {
  const world = await startWorld(t);

  const { smtp, api } = await sendBoth(world);

  const peer = `${world.sink.host}:${world.sink.port}`;
  assert.deepStrictEqual(await eventsOf(world, smtp), [
    { type: 'queued' }, { type: 'sending', attempt: 1 }, { type: 'sent', attempt: 1, peer, response: '250 OK: message queued' },
  ]);
  assert.deepStrictEqual(await eventsOf(world, api), await eventsOf(world, smtp));
});

test('a message by SMTP and the same by the API post the same webhooks', async (t) => {
  const world = await startWorld(t);

  const { smtp, api } = await sendBoth(world);

  assert.deepStrictEqual(webhooksOf(world, smtp), [{
    type: 'email.sent',
    data: {
      attempt: 1, peer: `${world.sink.host}:${world.sink.port}`, response: '250 OK: message queued', account: world.account.id, channel: 'email',
      recipient: TO, family: 'transactional', tracking: { opens: true, clicks: true },
    },
  }]);
  assert.deepStrictEqual(webhooksOf(world, api), webhooksOf(world, smtp));
  assert.deepStrictEqual(world.receiver.rejected, []);
});

test('a message by SMTP and the same by the API reach the peer from their tagged envelope senders, to the same recipient', async (t) => {
  const world = await startWorld(t);

  const { smtp, api } = await sendBoth(world);

  assert.deepStrictEqual(receivedFor(world, smtp).rcptTo, [TO]);
  assert.deepStrictEqual(receivedFor(world, api).rcptTo, [TO]);
  assert.equal(world.sink.messages.length, 2);
});

test('a message by SMTP and the same by the API both carry a DKIM signature of example.com that verifies at the peer', async (t) => {
  const world = await startWorld(t);

  const { smtp, api } = await sendBoth(world);

  for (const msgid of [smtp, api]) {
    const result = await dkimVerify(receivedFor(world, msgid).raw, { resolver: world.resolver });
    assert.deepStrictEqual(result.results.map((r) => [r.status.result, r.signingDomain]), [['pass', 'example.com']], msgid);
  }
});
