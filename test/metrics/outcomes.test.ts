// The outcome counters and latency histograms after known traffic, counted where each
// event is recorded: the worker's outcomes, an SMSC's delivery receipts (deliver_sm),
// DSNs and a complaint through the inbound SMTP listener, WhatsApp status webhooks, and
// the simulator's later reports. Scraped through the metrics listener; values compared exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import nodemailer from 'nodemailer';
import type { RecordedPublicEvent } from '../../src/domain/event-catalogue.ts';
import type { Service } from '../../src/service.ts';
import { groupCommitter } from '../../src/store/group-commit.ts';
import { recordEvent } from '../../src/store/messages.ts';
import { startSmsc } from '../peers/smsc.ts';
import { cloudApiWorker, postWebhook, startCloudApiStandIn, statusWebhook } from '../peers/whatsapp-cloud-api.ts';
import { addWhatsappTemplate, emailBody, openAccount, post, smsBody, startService } from '../support/service.ts';
import { verpOf } from '../support/verp.ts';
import { sample, scrape } from './scrape.ts';

const BOUNCE_DOMAIN = 'bounces.herald.test';
const START = Date.parse('2026-01-05T09:00:00.000Z');

/** An RFC 3464 DSN or RFC 5965 report of test/fixtures/inbound about `msgid`, sent to the listener. */
async function report(service: Service, fixture: string, msgid: string, recipient: string): Promise<void> {
  const raw = readFileSync(new URL(`../fixtures/inbound/${fixture}`, import.meta.url), 'utf8')
    .replaceAll('{{MSGID}}', msgid).replaceAll('{{BOUNCE_DOMAIN}}', BOUNCE_DOMAIN)
    .replaceAll('{{MESSAGE_ID_HOST}}', 'herald.test').replaceAll('{{RECIPIENT}}', recipient)
    .replaceAll('{{VERP}}', verpOf(service, msgid));
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: service.inboundSmtpPort ?? 0, secure: false, ignoreTLS: true, logger: false });
  try {
    const sent = await transport.sendMail({ envelope: { from: '', to: [verpOf(service, msgid)] }, raw });
    assert.match(sent.response, /^250 /);
  } finally {
    transport.close();
  }
}

test('delivered, bounced, failed and complained are counted per channel from receipts, DSNs, ARF reports and the simulator, with their latencies', async (t) => {
  const smsc = await startSmsc();
  t.after(() => smsc.close());
  let now = START;
  const service = await startService(t, {
    clock: () => now,
    env: {
      HERALD_SMS_TRANSPORT: smsc.url(), HERALD_INBOUND_SMTP_PORT: '0', HERALD_INBOUND_SMTP_HOST: '127.0.0.1', HERALD_BOUNCE_DOMAIN: BOUNCE_DOMAIN,
      HERALD_PUBLIC_URL: 'https://herald.test', HERALD_SIMULATOR_STEP_MS: '1000',
    },
  });
  const account = await openAccount(service);
  const before = (await scrape(service.metrics)).body;
  assert.equal(sample(before, 'herald_events_total{channel="sms",type="sms.delivered"}'), 0);
  assert.equal(sample(before, 'herald_events_total{channel="email",type="email.bounced"}'), 0);

  // Two SMS through the SMSC, taken 3 s after their accept; its receipts come 10 s later.
  const sms = await post(service, '/v1/sms/send', account.apiKey, smsBody({ mobile_numbers: ['+5215512345678', '+5215587654321'] }));
  assert.equal(sms.statusCode, 200);
  // Three emails through the capture transport, and one to the simulator that is delivered, opened and clicked.
  const emails = await post(service, '/v1/email', account.apiKey, emailBody({
    to: [{ email: 'ana@example.org' }, { email: 'ben@example.org' }, { email: 'eva@example.org' }, { email: 'clicked@simulator.herald.test' }],
  }));
  assert.equal(emails.statusCode, 200);
  const [ana, ben, eva] = (emails.json().to as { msgid: string }[]).map((to) => to.msgid);
  now += 3_000;
  assert.equal(await service.worker.drain(), 6);
  now += 10_000;
  await smsc.sendReceipt(smsc.submits[0]?.messageId ?? '', 'DELIVRD');
  await smsc.sendReceipt(smsc.submits[1]?.messageId ?? '', 'UNDELIV', { err: '011' });
  // A relay's DSN says delivered (Action: relayed), another bounces, a mailbox provider reports a complaint.
  await report(service, 'dsn-relayed.eml', ana ?? '', 'ana@example.org');
  await report(service, 'dsn-failed-permanent.eml', ben ?? '', 'ben@example.org');
  await report(service, 'arf-abuse.eml', eva ?? '', 'eva@example.org');
  // The simulator's three later reports, a step apart.
  now += 60_000;
  assert.equal(await service.simulatedReports?.drain(), 3);

  const { body } = await scrape(service.metrics);
  const events = (channel: string, type: string) => sample(body, `herald_events_total{channel="${channel}",type="${channel}.${type}"}`);
  assert.deepStrictEqual(
    { sent: events('sms', 'sent'), delivered: events('sms', 'delivered'), failed: events('sms', 'failed') },
    { sent: 2, delivered: 1, failed: 1 },
  );
  assert.deepStrictEqual(
    {
      sent: events('email', 'sent'), delivered: events('email', 'delivered'), bounced: events('email', 'bounced'), complained: events('email', 'complained'),
      opened: events('email', 'opened'), clicked: events('email', 'clicked'), failed: events('email', 'failed'), deferred: events('email', 'deferred'),
    },
    { sent: 4, delivered: 2, bounced: 1, complained: 1, opened: 1, clicked: 1, failed: 0, deferred: 0 },
  );
  assert.equal(events('whatsapp', 'read'), 0);
  // Accept to sent: 3 s for each of the six (the 2.5 s bucket holds none, the 5 s bucket all).
  assert.equal(sample(body, 'herald_accept_to_sent_seconds_count{channel="sms"}'), 2);
  assert.equal(sample(body, 'herald_accept_to_sent_seconds_bucket{le="2.5",channel="sms"}'), 0);
  assert.equal(sample(body, 'herald_accept_to_sent_seconds_bucket{le="5",channel="sms"}'), 2);
  assert.equal(sample(body, 'herald_accept_to_sent_seconds_sum{channel="sms"}'), 6);
  assert.equal(sample(body, 'herald_accept_to_sent_seconds_count{channel="email"}'), 4);
  // Accept to delivered: the SMS receipt at 13 s; the relay's DSN at 13 s and the simulator's report later.
  assert.equal(sample(body, 'herald_accept_to_delivered_seconds_count{channel="sms"}'), 1);
  assert.equal(sample(body, 'herald_accept_to_delivered_seconds_sum{channel="sms"}'), 13);
  assert.equal(sample(body, 'herald_accept_to_delivered_seconds_count{channel="email"}'), 2);
  assert.equal(sample(body, 'herald_accept_to_delivered_seconds_bucket{le="10",channel="email"}'), 0);
  assert.equal(sample(body, 'herald_accept_to_delivered_seconds_bucket{le="30",channel="email"}'), 1);
  assert.equal(sample(body, 'herald_accept_to_delivered_seconds_count{channel="whatsapp"}'), undefined);
});

test('an event whose transaction does not commit is not counted', async (t) => {
  const service = await startService(t, { clock: () => START });
  const account = await openAccount(service);
  await post(service, '/v1/sms/send', account.apiKey, smsBody());
  const failing = service.deps.commit.run(async (tx) => {
    const [message] = await tx.selectFrom('messages').select('id').execute();
    await recordEvent(tx, { messageId: message?.id ?? '', status: 'failed', eventId: service.deps.newId(), at: START, data: {} });
    throw new Error('rolled back');
  });
  await assert.rejects(failing, /rolled back/);
  const { body } = await scrape(service.metrics);
  assert.equal(sample(body, 'herald_events_total{channel="sms",type="sms.failed"}'), 0);
  await service.worker.drain();
  assert.equal(sample((await scrape(service.metrics)).body, 'herald_events_total{channel="sms",type="sms.sent"}'), 1);
});

test('in a group commit, the events of a unit that failed are dropped and its neighbours\' are told once, after the commit', async (t) => {
  const service = await startService(t, { clock: () => START });
  const account = await openAccount(service);
  const msgids = (await post(service, '/v1/sms/send', account.apiKey, smsBody({ mobile_numbers: ['+5215512345678', '+5215587654321'] }))).json().messages
    .map((m: { msgid: string }) => m.msgid) as string[];
  const told: RecordedPublicEvent[][] = [];
  const committer = groupCommitter(service.store.db, { maxBatch: 8, onEvents: (events) => told.push([...events]) });
  const record = (messageId: string, fail: boolean) => committer.run(async (tx) => {
    await recordEvent(tx, { messageId, status: 'failed', eventId: service.deps.newId(), at: START + 1000, data: {} });
    if (fail) throw new Error('this unit fails');
  });
  // Both in one batch: the first run without savepoints fails, the rerun keeps the good unit only.
  const [kept, failed] = await Promise.allSettled([record(msgids[0] ?? '', false), record(msgids[1] ?? '', true)]);
  assert.equal(kept.status, 'fulfilled');
  assert.equal(failed.status, 'rejected');
  assert.deepStrictEqual(told, [[{ channel: 'sms', type: 'sms.failed', at: START + 1000, acceptedAt: START }]]);
});

test('delivered, read and failed from WhatsApp status webhooks are counted', async (t) => {
  const APP_SECRET = 'meta-app-secret-0123456789';
  const PHONE_NUMBER_ID = '106540352242922';
  const service = await startService(t, { clock: () => START, env: { HERALD_WHATSAPP_APP_SECRET: APP_SECRET, HERALD_WHATSAPP_VERIFY_TOKEN: 'verify-0123456789' } });
  const peer = await startCloudApiStandIn(t);
  const account = await openAccount(service, { balance: 10_000, whatsappPrice: 500, whatsappPhoneNumberId: PHONE_NUMBER_ID, whatsappAccessToken: 'EAAG-token' });
  const template = await addWhatsappTemplate(service, account.id);
  for (const destination of ['5215512345678', '5215587654321']) {
    assert.equal((await post(service, '/v1/whatsapp/sendTemplateMessage', account.apiKey, { destination, templateId: template.id, params: ['Ana', '1234'] })).statusCode, 200);
  }
  await cloudApiWorker(service, peer.baseUrl, service.deps.clock).drain();
  // Meta's statuses come 7 s after the accept (its timestamps are whole seconds).
  const seconds = START / 1000 + 7;
  for (const status of [
    { id: 'wamid.1', status: 'delivered', timestamp: seconds, recipient: '5215512345678' },
    { id: 'wamid.1', status: 'read', timestamp: seconds, recipient: '5215512345678' },
    { id: 'wamid.2', status: 'failed', timestamp: seconds, recipient: '5215587654321', errors: [{ code: 131026, title: 'Message undeliverable' }] },
  ]) {
    assert.equal((await postWebhook(service, statusWebhook(PHONE_NUMBER_ID, status), { appSecret: APP_SECRET })).statusCode, 200);
  }
  const { body } = await scrape(service.metrics);
  const events = (type: string) => sample(body, `herald_events_total{channel="whatsapp",type="whatsapp.${type}"}`);
  assert.deepStrictEqual({ delivered: events('delivered'), read: events('read'), failed: events('failed') }, { delivered: 1, read: 1, failed: 1 });
  assert.equal(sample(body, 'herald_accept_to_delivered_seconds_count{channel="whatsapp"}'), 1);
  assert.equal(sample(body, 'herald_accept_to_delivered_seconds_sum{channel="whatsapp"}'), 7);
});
