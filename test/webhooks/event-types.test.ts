// Every public event type, born the way it is born in production, reaches a real
// receiver on loopback that verifies each post with the `standardwebhooks` package.
// Email outcomes come from a stand-in for the mail peer; SMS through a real SMPP SMSC
// and its delivery receipts; WhatsApp through the Cloud API stand-in and signed status
// webhooks. Engagement, complaint, certificate and DSN-bounce events are recorded with
// recordEvent inside a transaction, the one path all of their producers use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { uuidv7 } from '../../src/app/uuidv7-source.ts';
import type { Outcome, Transport } from '../../src/channels/channel.ts';
import { OutboxWorker, type Transports } from '../../src/queue/outbox/worker.ts';
import { recordEvent } from '../../src/store/messages.ts';
import { addSuppression } from '../../src/store/suppressions.ts';
import { startSmsc } from '../peers/smsc.ts';
import { cloudApiWorker, postWebhook, startCloudApiStandIn, statusWebhook } from '../peers/whatsapp-cloud-api.ts';
import { startWebhookReceiver, subscribe, type ReceivedEvent } from '../peers/webhook-receiver.ts';
import { addWhatsappTemplate, emailBody, openAccount, post, smsBody, startService } from '../support/service.ts';

/** The events of one message, in arrival order. */
const typesOf = (received: readonly ReceivedEvent[], msgid: string): string[] =>
  received.filter((e) => e.payload.data.msgid === msgid).map((e) => e.payload.type);

// What the stand-in mail peer answers, by recipient.
const EMAIL_OUTCOMES: Readonly<Record<string, Outcome>> = {
  'delivered@example.org': { kind: 'accepted', peer: 'mx.example.org[192.0.2.10]:25', response: '250 2.0.0 OK queued as 4F1A', delivered: true },
  'relayed@example.org': { kind: 'accepted', peer: 'relay.example.net', response: '250 2.0.0 Ok: queued' },
  'later@example.org': { kind: 'deferred', peer: 'mx.example.org[192.0.2.10]:25', response: '451 4.7.1 Greylisted, try again later' },
  'unknown@example.org': {
    kind: 'failed', peer: 'mx.example.org[192.0.2.10]:25', response: '550 5.1.1 <unknown@example.org>: user unknown', leftTheHouse: true, bounced: true,
    details: { bounce_type: 'hard', status_code: '5.1.1', diagnostic: '550 5.1.1 <unknown@example.org>: user unknown', source: 'smtp' },
  },
  'broken@example.org': { kind: 'failed', peer: 'attachments', response: 'attachment https://files.example.com/a.pdf: HTTP 404', leftTheHouse: false },
};

function mailPeerStandIn(): Transport<never> {
  return {
    name: 'mail-peer',
    async send(message): Promise<Outcome> {
      const outcome = EMAIL_OUTCOMES[message.recipient];
      if (outcome === undefined) throw new Error(`no outcome for ${message.recipient}`);
      return outcome;
    },
  };
}

test('every email event type reaches the receiver, verified, each message\'s events in the order they happened', async (t) => {
  const service = await startService(t);
  const receiver = await startWebhookReceiver(t);
  const account = await openAccount(service);
  const secret = await subscribe(service, account.apiKey, receiver);
  await addSuppression(service.deps.db, { accountId: account.id, address: 'gone@example.org', reason: 'manual', messageId: null, at: service.deps.clock() });

  const recipients = [...Object.keys(EMAIL_OUTCOMES), 'gone@example.org'];
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ to: recipients.map((email) => ({ email })) }));
  assert.equal(res.statusCode, 200);
  const msgid = Object.fromEntries((res.json().to as { email: string; msgid: string }[]).map((r) => [r.email, r.msgid]));
  const stand = mailPeerStandIn();
  const worker = new OutboxWorker(
    { db: service.store.db, clock: service.deps.clock, newId: uuidv7, capabilities: service.store.capabilities, transports: { email: stand, sms: stand, whatsapp: stand } as unknown as Transports, logger: pino({ level: 'silent' }) },
    { owner: 'mail-peer-worker', batchSize: 10, concurrency: 10, leaseMs: 60_000, pollMs: 50 },
  );
  await worker.drain();

  // The events other parts of herald record later about the delivered message, and a DSN bounce of the relayed one.
  const delivered = msgid['delivered@example.org'] ?? '';
  const relayed = msgid['relayed@example.org'] ?? '';
  const later: [string, string, Record<string, unknown>][] = [
    [delivered, 'certified', { certificate_url: `https://herald.example.com/v1/email/${delivered}/certificate` }],
    [delivered, 'opened', { machine: false, user_agent: 'Mozilla/5.0' }],
    [delivered, 'clicked', { url: 'https://example.com/offer', machine: false }],
    [delivered, 'complained', { feedback_type: 'abuse' }],
    [delivered, 'unsubscribed', { method: 'one-click' }],
    [relayed, 'bounced', { bounce_type: 'hard', status_code: '5.1.1', diagnostic: 'smtp; 550 5.1.1 user unknown', source: 'dsn' }],
  ];
  for (const [messageId, type, data] of later) {
    await service.deps.db.transaction().execute((tx) => recordEvent(tx, { messageId, type, eventId: uuidv7(), at: service.deps.clock(), data }));
  }
  await service.webhooks.drain();

  assert.deepStrictEqual(receiver.rejected, []);
  assert.deepStrictEqual(
    [...new Set(receiver.received.map((e) => e.payload.type))].sort(),
    ['email.bounced', 'email.certified', 'email.clicked', 'email.complained', 'email.deferred', 'email.delivered', 'email.dropped', 'email.failed',
      'email.opened', 'email.sent', 'email.unsubscribed'],
  );
  assert.deepStrictEqual(typesOf(receiver.received, delivered), ['email.delivered', 'email.certified', 'email.opened', 'email.clicked', 'email.complained', 'email.unsubscribed']);
  assert.deepStrictEqual(typesOf(receiver.received, relayed), ['email.sent', 'email.bounced']);
  assert.deepStrictEqual(typesOf(receiver.received, msgid['later@example.org'] ?? ''), ['email.deferred']);
  assert.deepStrictEqual(typesOf(receiver.received, msgid['unknown@example.org'] ?? ''), ['email.bounced']);
  assert.deepStrictEqual(typesOf(receiver.received, msgid['broken@example.org'] ?? ''), ['email.failed']);
  assert.deepStrictEqual(typesOf(receiver.received, msgid['gone@example.org'] ?? ''), ['email.dropped']);
  for (const event of receiver.received) {
    assert.deepStrictEqual(event.verifiedBy, [secret]);
    assert.equal(event.contentType, 'application/json');
    assert.equal(event.path, '/hooks/herald');
    assert.equal(event.payload.data.account, account.id);
  }
  // Every event once, each under its own webhook-id.
  assert.equal(new Set(receiver.received.map((e) => e.id)).size, receiver.received.length);
  assert.equal(receiver.received.length, 12);
});

test('a synchronous SMTP rejection arrives as email.bounced with the bounce type, status code and diagnostic', async (t) => {
  const service = await startService(t);
  const receiver = await startWebhookReceiver(t);
  const account = await openAccount(service);
  await subscribe(service, account.apiKey, receiver);
  await post(service, '/v1/email', account.apiKey, emailBody({ to: [{ email: 'unknown@example.org' }] }));
  const stand = mailPeerStandIn();
  await new OutboxWorker(
    { db: service.store.db, clock: service.deps.clock, newId: uuidv7, capabilities: service.store.capabilities, transports: { email: stand, sms: stand, whatsapp: stand } as unknown as Transports, logger: pino({ level: 'silent' }) },
    { owner: 'mail-peer-worker', batchSize: 10, concurrency: 10, leaseMs: 60_000, pollMs: 50 },
  ).drain();
  await service.webhooks.drain();

  const [bounce] = receiver.received;
  assert.equal(bounce?.payload.type, 'email.bounced');
  assert.deepStrictEqual(
    [bounce?.payload.data.bounce_type, bounce?.payload.data.status_code, bounce?.payload.data.diagnostic, bounce?.payload.data.recipient],
    ['hard', '5.1.1', '550 5.1.1 <unknown@example.org>: user unknown', 'unknown@example.org'],
  );
});

test('SMS events reach the receiver: sent when the SMSC takes the message, delivered and failed from its delivery receipts', async (t) => {
  const smsc = await startSmsc();
  t.after(() => smsc.close());
  const service = await startService(t, { env: { HERALD_SMS_TRANSPORT: smsc.url() } });
  const receiver = await startWebhookReceiver(t);
  const account = await openAccount(service);
  const secret = await subscribe(service, account.apiKey, receiver);
  const toAna = (await post(service, '/v1/sms/send', account.apiKey, smsBody({ mobile_numbers: ['+5215512345678'] }))).json().messages[0].msgid as string;
  await service.worker.drain();
  const toBen = (await post(service, '/v1/sms/send', account.apiKey, smsBody({ mobile_numbers: ['+5215587654321'] }))).json().messages[0].msgid as string;
  await service.worker.drain();

  await smsc.sendReceipt(smsc.submits[0]?.messageId ?? '', 'DELIVRD');
  await smsc.sendReceipt(smsc.submits[1]?.messageId ?? '', 'UNDELIV', { err: '011' });
  await service.webhooks.drain();

  assert.deepStrictEqual(receiver.rejected, []);
  assert.deepStrictEqual(typesOf(receiver.received, toAna), ['sms.sent', 'sms.delivered']);
  assert.deepStrictEqual(typesOf(receiver.received, toBen), ['sms.sent', 'sms.failed']);
  assert.equal(receiver.received.find((e) => e.payload.type === 'sms.failed')?.payload.data.response, 'stat:UNDELIV err:011');
  for (const event of receiver.received) assert.deepStrictEqual(event.verifiedBy, [secret]);
});

test('WhatsApp events reach the receiver: sent by the Cloud API, then delivered, read and failed from its status webhooks', async (t) => {
  const APP_SECRET = 'meta-app-secret-0123456789';
  const PHONE_NUMBER_ID = '106540352242922';
  const service = await startService(t, { env: { HERALD_WHATSAPP_APP_SECRET: APP_SECRET, HERALD_WHATSAPP_VERIFY_TOKEN: 'verify-0123456789' } });
  const peer = await startCloudApiStandIn(t);
  const receiver = await startWebhookReceiver(t);
  const account = await openAccount(service, { balance: 10_000, whatsappPrice: 500, whatsappPhoneNumberId: PHONE_NUMBER_ID, whatsappAccessToken: 'EAAG-token' });
  const secret = await subscribe(service, account.apiKey, receiver);
  const template = await addWhatsappTemplate(service, account.id);
  const send = async (destination: string): Promise<string> => {
    const res = await post(service, '/v1/whatsapp/sendTemplateMessage', account.apiKey, { destination, templateId: template.id, params: ['Ana', '1234'] });
    await cloudApiWorker(service, peer.baseUrl, service.deps.clock).drain();
    return res.json().msgid as string;
  };
  const read = await send('5215512345678'); // wamid.1
  const failed = await send('5215587654321'); // wamid.2

  const seconds = Math.floor(service.deps.clock() / 1000);
  for (const status of [
    { id: 'wamid.1', status: 'delivered', timestamp: seconds, recipient: '5215512345678' },
    { id: 'wamid.1', status: 'read', timestamp: seconds + 1, recipient: '5215512345678' },
    { id: 'wamid.2', status: 'failed', timestamp: seconds, recipient: '5215587654321', errors: [{ code: 131026, title: 'Message undeliverable' }] },
  ]) {
    assert.equal((await postWebhook(service, statusWebhook(PHONE_NUMBER_ID, status), { appSecret: APP_SECRET })).statusCode, 200);
  }
  await service.webhooks.drain();

  assert.deepStrictEqual(receiver.rejected, []);
  assert.deepStrictEqual(typesOf(receiver.received, read), ['whatsapp.sent', 'whatsapp.delivered', 'whatsapp.read']);
  assert.deepStrictEqual(typesOf(receiver.received, failed), ['whatsapp.sent', 'whatsapp.failed']);
  for (const event of receiver.received) assert.deepStrictEqual(event.verifiedBy, [secret]);
  assert.equal(receiver.received.length, 5);
});
