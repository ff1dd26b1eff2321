// The inbound SMTP listener of the bounce domain, against a real SMTP client
// (nodemailer, envelope + raw) on 127.0.0.1: RFC 3464 DSNs and RFC 5965 feedback
// reports written from the RFCs' examples (test/fixtures/inbound) bounce, delay or
// complain about real messages, malformed ones are kept with their error, and
// anything not addressed to the bounce domain's own mailboxes is refused.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import pino, { type Logger } from 'pino';
import getTLSOptions from 'smtp-server/lib/tls-options.js';
import { uuidv7 } from '../../src/app/uuidv7-source.ts';
import { startInboundListener, type InboundListener } from '../../src/inbound/listener.ts';
import { claimDue } from '../../src/queue/outbox/claim.ts';
import { recordOutcome } from '../../src/queue/outbox/complete.ts';
import type { Service } from '../../src/service.ts';
import { putSetting } from '../../src/store/settings.ts';
import { listSuppressions } from '../../src/store/suppressions.ts';
import { startSmtpSink } from '../peers/smtp-sink.ts';
import { captureLog } from '../support/captured-log.ts';
import { ADMIN_TOKEN, emailBody, get, openAccount, post, readAccount, startService, type TestAccount } from '../support/service.ts';
import { verpOf } from '../support/verp.ts';

const BOUNCE_DOMAIN = 'bounces.herald.test';
const PUBLIC_URL = 'https://herald.test';
const START = Date.parse('2025-05-01T08:00:00.000Z');
const RECEIVED = Date.parse('2025-05-01T09:30:00.000Z');
const ENV = { HERALD_INBOUND_SMTP_PORT: '0', HERALD_INBOUND_SMTP_HOST: '127.0.0.1', HERALD_BOUNCE_DOMAIN: BOUNCE_DOMAIN, HERALD_PUBLIC_URL: PUBLIC_URL };

interface World {
  readonly service: Service;
  readonly account: TestAccount;
  readonly port: number;
  /** The clock, advanceable. */
  readonly now: { value: number };
}

async function startWorld(t: TestContext, env: Record<string, string> = {}, logger?: Logger): Promise<World> {
  const now = { value: START };
  const service = await startService(t, { clock: () => now.value, env: { ...ENV, ...env }, ...(logger === undefined ? {} : { logger }) });
  const account = await openAccount(service);
  assert.equal(typeof service.inboundSmtpPort, 'number');
  return { service, account, port: service.inboundSmtpPort ?? 0, now };
}

/** Sends an email through the API and lets the capture transport take it: status `sent`. */
async function sentEmail(world: World, to = 'ana@example.org'): Promise<string> {
  const res = await post(world.service, '/v1/email', world.account.apiKey, emailBody({ to: [{ email: to }] }));
  assert.equal(res.statusCode, 200);
  const msgid: string = res.json().to[0].msgid;
  await world.service.worker.drain();
  world.now.value = RECEIVED;
  return msgid;
}

/** A fixture about `fill.msgid`, its VERP addresses the tagged one herald wrote unless `fill.verp` says otherwise. */
function fixture(world: World, name: string, fill: { msgid: string; recipient?: string; verp?: string }): string {
  return readFileSync(new URL(`../fixtures/inbound/${name}`, import.meta.url), 'utf8')
    .replaceAll('{{VERP}}', fill.verp ?? verp(world, fill.msgid))
    .replaceAll('{{MSGID}}', fill.msgid)
    .replaceAll('{{BOUNCE_DOMAIN}}', BOUNCE_DOMAIN)
    .replaceAll('{{MESSAGE_ID_HOST}}', 'herald.test')
    .replaceAll('{{RECIPIENT}}', fill.recipient ?? 'ana@example.org');
}

/** One SMTP transaction to the listener; resolves with the final reply, rejects with the refusal. */
async function deliver(port: number, envelope: { from: string; to: string }, raw: string, options: { requireTLS?: boolean } = {}): Promise<string> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1', port, secure: false, logger: false,
    ...(options.requireTLS ? { requireTLS: true, tls: { rejectUnauthorized: false } } : { ignoreTLS: true }),
  });
  try {
    const info = await transport.sendMail({ envelope: { from: envelope.from, to: [envelope.to] }, raw });
    return info.response;
  } finally {
    transport.close();
  }
}

const verp = (world: World, msgid: string): string => verpOf(world.service, msgid);

function adminGet(service: Service, url: string) {
  return service.http.inject({ method: 'GET', url, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
}

async function reports(service: Service): Promise<Record<string, unknown>[]> {
  const res = await adminGet(service, '/admin/v1/inbound-reports');
  assert.equal(res.statusCode, 200);
  return res.json().reports;
}

async function messageView(world: World, msgid: string): Promise<{ status: string; events: Record<string, unknown>[] }> {
  const res = await get(world.service, `/v1/messages/${msgid}`, world.account.apiKey);
  assert.equal(res.statusCode, 200);
  return res.json();
}

const AT = '2025-05-01T09:30:00.000Z';

async function setWebhook(world: World): Promise<void> {
  const patch = await world.service.http.inject({
    method: 'PATCH', url: `/admin/v1/accounts/${world.account.id}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ webhookUrl: 'https://hooks.example.com/herald' }),
  });
  assert.equal(patch.statusCode, 200);
}

test('a DSN to the VERP address bounces the message hard, with the DSN fields on its event', async (t) => {
  const world = await startWorld(t);
  const msgid = await sentEmail(world);

  const reply = await deliver(world.port, { from: '', to: verp(world, msgid) }, fixture(world, 'dsn-failed-permanent.eml', { msgid }));

  assert.match(reply, /^250 /);
  const view = await messageView(world, msgid);
  assert.equal(view.status, 'bounced');
  assert.deepStrictEqual(view.events.at(-1), {
    type: 'bounced', at: AT, bounce_type: 'hard', status_code: '5.0.0',
    diagnostic: "550 'ana@example.org' is not a registered gateway user", source: 'dsn', reporting_mta: 'cs.utk.example',
  });
});

test('a hard-bounced DSN puts the recipient on the account\'s suppression list', async (t) => {
  const world = await startWorld(t);
  const msgid = await sentEmail(world);

  await deliver(world.port, { from: '', to: verp(world, msgid) }, fixture(world, 'dsn-failed-permanent.eml', { msgid }));

  assert.deepStrictEqual(await listSuppressions(world.service.deps.db, world.account.id, { limit: 10 }), [
    { address: 'ana@example.org', reason: 'bounced', messageId: msgid, createdAt: RECEIVED },
  ]);
});

test('a later send to the hard-bounced address is dropped: not sent, not billed', async (t) => {
  const world = await startWorld(t);
  const msgid = await sentEmail(world);
  await deliver(world.port, { from: '', to: verp(world, msgid) }, fixture(world, 'dsn-failed-permanent.eml', { msgid }));
  const before = (await readAccount(world.service, world.account.id)).messagesLeft;

  const res = await post(world.service, '/v1/email', world.account.apiKey, emailBody());
  const again: string = res.json().to[0].msgid;
  await world.service.worker.drain();

  assert.equal((await messageView(world, again)).status, 'dropped');
  assert.equal((await readAccount(world.service, world.account.id)).messagesLeft, before);
});

test('the DSN is kept for the operator: matched msgid, the parsed fields and its effect', async (t) => {
  const world = await startWorld(t);
  const msgid = await sentEmail(world);
  const raw = fixture(world, 'dsn-failed-permanent.eml', { msgid });
  await deliver(world.port, { from: '', to: verp(world, msgid) }, raw);

  const [summary] = await reports(world.service);
  assert.deepStrictEqual({ ...summary, id: undefined }, {
    id: undefined, receivedAt: AT, kind: 'dsn', mailFrom: null, rcptTo: verp(world, msgid), messageId: msgid, error: null,
  });
  const full = (await adminGet(world.service, `/admin/v1/inbound-reports/${String(summary?.id)}`)).json();
  assert.equal(full.raw.replaceAll('\r\n', '\n').trimEnd(), raw.trimEnd());
  assert.equal(full.parsed.matched_by, 'verp');
  assert.equal(full.parsed.effect, 'bounced');
  assert.equal(full.parsed.report.reportingMta, 'cs.utk.example');
  assert.deepStrictEqual(full.parsed.report.recipients.map((r: { finalRecipient: string; action: string; status: string }) => [r.finalRecipient, r.action, r.status]), [
    ['johnh@hpnjld.njd.hp.example', 'delayed', '4.0.0'],
    ['ana@example.org', 'failed', '5.0.0'],
    ['wsnell@sdcc13.ucsd.example', 'failed', '5.0.0'],
  ]);
  assert.deepStrictEqual(full.parsed.returned, { messageId: `<${msgid}@herald.test>`, returnPath: null });
});

test('a DSN that failed after days of 4.0.0 retries is a soft bounce: bounced, not suppressed', async (t) => {
  const world = await startWorld(t);
  const msgid = await sentEmail(world);

  await deliver(world.port, { from: '', to: verp(world, msgid) }, fixture(world, 'dsn-failed-after-retries.eml', { msgid }));

  const view = await messageView(world, msgid);
  assert.equal(view.status, 'bounced');
  assert.deepStrictEqual(view.events.at(-1), {
    type: 'bounced', at: AT, bounce_type: 'soft', status_code: '4.0.0', diagnostic: '426 connection timed out', source: 'dsn', reporting_mta: 'cs.utk.example',
  });
  assert.deepStrictEqual(await listSuppressions(world.service.deps.db, world.account.id, { limit: 10 }), []);
});

test('a delayed DSN records a deferred event and leaves the message as it was', async (t) => {
  const world = await startWorld(t);
  const msgid = await sentEmail(world);

  await deliver(world.port, { from: '', to: verp(world, msgid) }, fixture(world, 'dsn-delayed.eml', { msgid }));

  const view = await messageView(world, msgid);
  assert.equal(view.status, 'sent');
  assert.deepStrictEqual(view.events.at(-1), {
    type: 'deferred', at: AT, status_code: '4.4.1', diagnostic: '421 4.4.1 mx.example.org: connection timed out',
    source: 'dsn', reporting_mta: 'sun2.nsfnet-relay.example',
  });
  assert.deepStrictEqual(await listSuppressions(world.service.deps.db, world.account.id, { limit: 10 }), []);
});

const WEBHOOK_EVENTS: readonly [string, string, Record<string, unknown>][] = [
  ['dsn-delayed.eml', 'email.deferred', { source: 'dsn', status_code: '4.4.1' }],
  ['dsn-relayed.eml', 'email.delivered', { source: 'dsn', action: 'relayed' }],
];

for (const [file, type, fields] of WEBHOOK_EVENTS) {
  test(`${file} reaches the webhook as ${type}`, async (t) => {
    const world = await startWorld(t);
    await setWebhook(world);
    const msgid = await sentEmail(world);

    await deliver(world.port, { from: '', to: verp(world, msgid) }, fixture(world, file, { msgid }));

    const rows = await world.service.deps.db.selectFrom('webhook_deliveries').select(['type', 'payload']).where('message_id', '=', msgid).orderBy('id').execute();
    assert.deepStrictEqual(rows.map((r) => r.type), ['email.sent', type]);
    const data = JSON.parse(rows[1]?.payload ?? '{}').data;
    assert.deepStrictEqual(Object.fromEntries(Object.keys(fields).map((k) => [k, data[k]])), fields);
  });
}

test('a success DSN (Action: relayed) to the VERP address makes the message delivered, with the notice\'s words on its event', async (t) => {
  const world = await startWorld(t);
  const msgid = await sentEmail(world);

  const reply = await deliver(world.port, { from: '', to: verp(world, msgid) }, fixture(world, 'dsn-relayed.eml', { msgid }));

  assert.match(reply, /^250 /);
  const view = await messageView(world, msgid);
  assert.equal(view.status, 'delivered');
  assert.deepStrictEqual(view.events.at(-1), {
    type: 'delivered', at: AT, action: 'relayed', status_code: '2.0.0', diagnostic: '250 2.0.0 Ok: queued as 4ZpQ1c5mKqz1',
    remote_mta: 'mx.example.org', source: 'dsn', reporting_mta: 'relay.example.net',
  });
});

for (const action of ['delivered', 'expanded']) {
  test(`a success DSN with Action: ${action} makes the message delivered too`, async (t) => {
    const world = await startWorld(t);
    const msgid = await sentEmail(world);

    await deliver(world.port, { from: '', to: verp(world, msgid) }, fixture(world, 'dsn-relayed.eml', { msgid }).replace('Action: relayed', `Action: ${action}`));

    const view = await messageView(world, msgid);
    assert.equal(view.status, 'delivered');
    assert.equal(view.events.at(-1)?.action, action);
  });
}

test('a success DSN sent to postmaster@ is matched by the tagged Return-Path of the returned message', async (t) => {
  const world = await startWorld(t);
  const msgid = await sentEmail(world);

  await deliver(world.port, { from: '', to: `postmaster@${BOUNCE_DOMAIN}` }, fixture(world, 'dsn-relayed.eml', { msgid }));

  assert.equal((await messageView(world, msgid)).status, 'delivered');
  const [summary] = await reports(world.service);
  assert.equal((await adminGet(world.service, `/admin/v1/inbound-reports/${String(summary?.id)}`)).json().parsed.matched_by, 'return-path');
});

test('a success DSN about another recipient is kept with why and leaves the message sent', async (t) => {
  const world = await startWorld(t);
  const msgid = await sentEmail(world);

  await deliver(world.port, { from: '', to: verp(world, msgid) }, fixture(world, 'dsn-relayed.eml', { msgid, recipient: 'list-member@example.org' }));

  assert.equal((await messageView(world, msgid)).status, 'sent');
  const [summary] = await reports(world.service);
  assert.equal(summary?.error, "the notice is about list-member@example.org, not the message's recipient");
});

test('a second success DSN for a delivered message adds no second delivered event', async (t) => {
  const world = await startWorld(t);
  const msgid = await sentEmail(world);
  await deliver(world.port, { from: '', to: verp(world, msgid) }, fixture(world, 'dsn-relayed.eml', { msgid }));

  await deliver(world.port, { from: '', to: verp(world, msgid) }, fixture(world, 'dsn-relayed.eml', { msgid }));

  assert.equal((await messageView(world, msgid)).events.filter((e) => e.type === 'delivered').length, 1);
  const [newest] = await reports(world.service);
  assert.equal((await adminGet(world.service, `/admin/v1/inbound-reports/${String(newest?.id)}`)).json().parsed.effect, 'duplicate');
});

test('a failure DSN after a success DSN bounces the delivered message', async (t) => {
  const world = await startWorld(t);
  const msgid = await sentEmail(world);
  await deliver(world.port, { from: '', to: verp(world, msgid) }, fixture(world, 'dsn-relayed.eml', { msgid }));

  await deliver(world.port, { from: '', to: verp(world, msgid) }, fixture(world, 'dsn-failed-permanent.eml', { msgid }));

  assert.deepStrictEqual((await messageView(world, msgid)).events.map((e) => e.type), ['queued', 'sending', 'sent', 'delivered', 'bounced']);
});

test('a success DSN for a message still being sent is refused with 451, kept nowhere, and applied when sent again after the outbox recorded it', async (t) => {
  const world = await startWorld(t);
  const res = await post(world.service, '/v1/email', world.account.apiKey, emailBody());
  const msgid: string = res.json().to[0].msgid;
  // A worker that claimed the message and has not recorded the relay's answer yet: the notice overtook it.
  const [claimed] = await claimDue(world.service.store.db, world.service.store.capabilities, { owner: 'slow-worker', now: START, leaseMs: 60_000, limit: 1, channel: 'email' }, uuidv7);
  assert.equal(claimed?.msgid, msgid);

  await assert.rejects(deliver(world.port, { from: '', to: verp(world, msgid) }, fixture(world, 'dsn-relayed.eml', { msgid })), { responseCode: 451 });
  assert.deepStrictEqual(await reports(world.service), []);

  await recordOutcome({ db: world.service.store.db, clock: () => world.now.value, newId: uuidv7 }, 'slow-worker', claimed, { kind: 'accepted', peer: 'relay', response: '250 2.0.0 Ok' });
  await deliver(world.port, { from: '', to: verp(world, msgid) }, fixture(world, 'dsn-relayed.eml', { msgid }));
  assert.deepStrictEqual((await messageView(world, msgid)).events.map((e) => e.type), ['queued', 'sending', 'sent', 'delivered']);
});

test('a DSN sent to postmaster@ that names the message only by the Message-ID of the returned message changes nothing', async (t) => {
  const world = await startWorld(t);
  const msgid = await sentEmail(world);
  const before = await messageView(world, msgid);

  const reply = await deliver(world.port, { from: '', to: `postmaster@${BOUNCE_DOMAIN}` }, fixture(world, 'dsn-failed-permanent.eml', { msgid }));

  assert.match(reply, /^250 /);
  assert.deepStrictEqual(await messageView(world, msgid), before);
  assert.deepStrictEqual(await listSuppressions(world.service.deps.db, world.account.id, { limit: 10 }), []);
  const [summary] = await reports(world.service);
  assert.deepStrictEqual([summary?.messageId, summary?.error], [
    null, `forged: message ${msgid} is named only by its Message-ID or envelope id, not by its tagged VERP address; nothing applied`,
  ]);
  assert.match(await world.service.metrics.scrape(), /^herald_inbound_reports_forged_total\{reason="no-verp"\} 1$/m);
});

test('a second DSN for a bounced message is kept but adds no event and no second suppression', async (t) => {
  const world = await startWorld(t);
  const msgid = await sentEmail(world);
  await deliver(world.port, { from: '', to: verp(world, msgid) }, fixture(world, 'dsn-failed-permanent.eml', { msgid }));
  const eventsAfterFirst = (await messageView(world, msgid)).events.length;

  await deliver(world.port, { from: '', to: verp(world, msgid) }, fixture(world, 'dsn-failed-permanent.eml', { msgid }));

  assert.equal((await messageView(world, msgid)).events.length, eventsAfterFirst);
  assert.equal((await listSuppressions(world.service.deps.db, world.account.id, { limit: 10 })).length, 1);
  const kept = await reports(world.service);
  assert.equal(kept.length, 2);
  const newest = (await adminGet(world.service, `/admin/v1/inbound-reports/${String(kept[0]?.id)}`)).json();
  assert.equal(newest.parsed.effect, 'duplicate');
});

test('two DSNs for one message arriving at once make one bounced event', async (t) => {
  const world = await startWorld(t);
  const msgid = await sentEmail(world);
  const raw = fixture(world, 'dsn-failed-permanent.eml', { msgid });

  await Promise.all([1, 2, 3].map(() => deliver(world.port, { from: '', to: verp(world, msgid) }, raw)));

  assert.equal((await messageView(world, msgid)).events.filter((e) => e.type === 'bounced').length, 1);
  assert.equal((await reports(world.service)).length, 3);
});

test('an ARF abuse report to fbl@ records a complaint and suppresses the recipient, without changing the status', async (t) => {
  const world = await startWorld(t);
  const msgid = await sentEmail(world);

  const reply = await deliver(world.port, { from: 'abusedesk@example.net', to: `fbl@${BOUNCE_DOMAIN}` }, fixture(world, 'arf-abuse.eml', { msgid }));

  assert.match(reply, /^250 /);
  const view = await messageView(world, msgid);
  assert.equal(view.status, 'sent');
  assert.deepStrictEqual(view.events.at(-1), {
    type: 'complained', at: AT, feedback_type: 'abuse', user_agent: 'SomeGenerator/1.0', arrival_date: 'Thu, 8 Mar 2005 14:00:00 EDT',
    reporting_mta: 'mail.example.net', source: 'arf',
  });
  assert.deepStrictEqual(await listSuppressions(world.service.deps.db, world.account.id, { limit: 10 }), [
    { address: 'ana@example.org', reason: 'complained', messageId: msgid, createdAt: RECEIVED },
  ]);
  const [summary] = await reports(world.service);
  assert.deepStrictEqual([summary?.kind, summary?.messageId, summary?.mailFrom, summary?.error], ['arf', msgid, 'abusedesk@example.net', null]);
});

test('a second complaint about the same message adds no second event', async (t) => {
  const world = await startWorld(t);
  const msgid = await sentEmail(world);
  await deliver(world.port, { from: 'abusedesk@example.net', to: `abuse@${BOUNCE_DOMAIN}` }, fixture(world, 'arf-abuse.eml', { msgid }));

  await deliver(world.port, { from: 'abusedesk@example.net', to: `abuse@${BOUNCE_DOMAIN}` }, fixture(world, 'arf-abuse.eml', { msgid }));

  assert.equal((await messageView(world, msgid)).events.filter((e) => e.type === 'complained').length, 1);
});

test('a not-spam feedback report is kept and changes nothing', async (t) => {
  const world = await startWorld(t);
  const msgid = await sentEmail(world);
  const before = await messageView(world, msgid);

  await deliver(world.port, { from: 'abusedesk@example.net', to: `fbl@${BOUNCE_DOMAIN}` }, fixture(world, 'arf-not-spam.eml', { msgid }));

  assert.deepStrictEqual(await messageView(world, msgid), before);
  assert.deepStrictEqual(await listSuppressions(world.service.deps.db, world.account.id, { limit: 10 }), []);
  const [summary] = await reports(world.service);
  assert.deepStrictEqual([summary?.kind, summary?.messageId, summary?.error], ['arf', msgid, null]);
});

// ---- forged reports: the VERP address must carry the message's tag ----

/** Everything a report could change about a message: its view (status, events), suppressions, webhook deliveries. */
async function footprint(world: World, msgid: string): Promise<unknown> {
  const webhooks = await world.service.deps.db.selectFrom('webhook_deliveries').select('type').where('message_id', '=', msgid).orderBy('id').execute();
  return {
    view: await messageView(world, msgid),
    suppressions: await listSuppressions(world.service.deps.db, world.account.id, { limit: 10 }),
    webhooks: webhooks.map((w) => w.type),
  };
}

const untagged = (msgid: string): string => `b+${msgid}@${BOUNCE_DOMAIN}`;

test('a real DSN to the envelope sender the relay saw, tagged, bounces the message', async (t) => {
  const sink = await startSmtpSink({ starttls: false });
  t.after(() => sink.close());
  const world = await startWorld(t, { HERALD_EMAIL_TRANSPORT: `smtp://${sink.host}:${sink.port}` });
  const msgid = await sentEmail(world);
  const mailFrom = String(sink.messages[0]?.mailFrom);
  assert.match(mailFrom, new RegExp(`^b\\+${msgid}-[0-9a-f]{16}@bounces\\.herald\\.test$`));

  await deliver(world.port, { from: '', to: mailFrom }, fixture(world, 'dsn-failed-permanent.eml', { msgid, verp: mailFrom }));

  assert.equal((await messageView(world, msgid)).status, 'bounced');
  assert.deepStrictEqual(await listSuppressions(world.service.deps.db, world.account.id, { limit: 10 }), [
    { address: 'ana@example.org', reason: 'bounced', messageId: msgid, createdAt: RECEIVED },
  ]);
});

const FORGERIES: readonly [string, (world: World, msgid: string) => string, string, string][] = [
  ['the untagged address', (_world, msgid) => untagged(msgid), 'untagged',
    'an untagged VERP address for message {{MSGID}}, taken only for messages sent before tags and within the retry horizon'],
  ['a wrongly tagged address', (_world, msgid) => `b+${msgid}-0123456789abcdef@${BOUNCE_DOMAIN}`, 'wrong-tag', 'the VERP address\'s tag is not message {{MSGID}}\'s'],
  ['another message\'s tag', (world, msgid) => verp(world, '01960000-0000-7000-8000-0000000000ff').replace('01960000-0000-7000-8000-0000000000ff', msgid), 'wrong-tag',
    'the VERP address\'s tag is not message {{MSGID}}\'s'],
];

for (const [what, address, reason, why] of FORGERIES) {
  test(`a DSN to ${what} changes nothing: no status, no suppression, no event, no webhook; kept as forged, logged at info and counted`, async (t) => {
    const log = captureLog();
    const world = await startWorld(t, {}, log.logger);
    await setWebhook(world);
    const msgid = await sentEmail(world);
    const before = await footprint(world, msgid);
    const to = address(world, msgid);

    const reply = await deliver(world.port, { from: '', to }, fixture(world, 'dsn-failed-permanent.eml', { msgid, verp: to }));

    assert.match(reply, /^250 /);
    assert.deepStrictEqual(await footprint(world, msgid), before);
    const [kept] = await reports(world.service);
    assert.deepStrictEqual([kept?.messageId, kept?.error], [null, `forged: ${why.replace('{{MSGID}}', msgid)}; nothing applied`]);
    const full = (await adminGet(world.service, `/admin/v1/inbound-reports/${String(kept?.id)}`)).json();
    assert.deepStrictEqual([full.parsed.msgid, full.parsed.matched_by, full.parsed.effect, full.parsed.forged], [msgid, null, 'none', reason]);
    assert.match(await world.service.metrics.scrape(), new RegExp(`^herald_inbound_reports_forged_total\\{reason="${reason}"\\} 1$`, 'm'));
    assert.deepStrictEqual(log.lines.filter((l) => l.msg === 'forged inbound report kept, nothing applied').map((l) => [l.level, l['reason'], l['rcptTo']]), [[30, reason, to]]);
  });
}

test('an ARF complaint whose addresses are untagged changes nothing', async (t) => {
  const world = await startWorld(t);
  const msgid = await sentEmail(world);
  const before = await footprint(world, msgid);

  await deliver(world.port, { from: 'abusedesk@example.net', to: `fbl@${BOUNCE_DOMAIN}` }, fixture(world, 'arf-abuse.eml', { msgid, verp: untagged(msgid) }));

  assert.deepStrictEqual(await footprint(world, msgid), before);
  const [kept] = await reports(world.service);
  assert.equal(kept?.error, `forged: an untagged VERP address for message ${msgid}, taken only for messages sent before tags and within the retry horizon; nothing applied`);
});

test('an untagged address of a message from before tags is believed within the retry horizon, and not after it', async (t) => {
  const world = await startWorld(t, { HERALD_EMAIL_RETRY_HOURS: '72' });
  const early = await sentEmail(world);
  const late = await sentEmail(world);
  // As if this installation had started writing tags after both messages were sent.
  await putSetting(world.service.deps.db, 'verp_tags_since', String(RECEIVED));

  await deliver(world.port, { from: '', to: untagged(early) }, fixture(world, 'dsn-failed-permanent.eml', { msgid: early, verp: untagged(early) }));
  assert.equal((await messageView(world, early)).status, 'bounced');

  world.now.value = START + 72 * 3_600_000 + 1;
  const before = await footprint(world, late);
  await deliver(world.port, { from: '', to: untagged(late) }, fixture(world, 'dsn-failed-permanent.eml', { msgid: late, verp: untagged(late) }));
  assert.deepStrictEqual(await footprint(world, late), before);
  assert.equal((await reports(world.service))[0]?.error, `forged: an untagged VERP address for message ${late}, taken only for messages sent before tags and within the retry horizon; nothing applied`);
});

test('an untagged address of a message sent after tags began is not believed, however young', async (t) => {
  const world = await startWorld(t);
  const msgid = await sentEmail(world);
  const before = await footprint(world, msgid);

  await deliver(world.port, { from: '', to: untagged(msgid) }, fixture(world, 'dsn-failed-permanent.eml', { msgid, verp: untagged(msgid) }));

  assert.deepStrictEqual(await footprint(world, msgid), before);
});

const MALFORMED: readonly [string, string, string][] = [
  ['a truncated multipart', 'dsn-truncated.eml', 'recipient 1: Action missing or not one of failed, delayed, delivered, relayed, expanded'],
  ['a report without recipients', 'dsn-no-recipients.eml', 'delivery-status has no per-recipient fields'],
  ['garbage', 'garbage.eml', 'not a multipart/report (Content-Type missing)'],
  ['a plain-text bounce', 'plain-text-bounce.eml', 'not a multipart/report (Content-Type missing)'],
];

for (const [what, name, error] of MALFORMED) {
  test(`${what} is accepted, kept with "${error}", and the listener serves the next message`, async (t) => {
    const world = await startWorld(t);
    const msgid = await sentEmail(world);

    const reply = await deliver(world.port, { from: '', to: verp(world, msgid) }, fixture(world, name, { msgid }));

    assert.match(reply, /^250 /);
    assert.equal((await messageView(world, msgid)).status, 'sent');
    const [kept] = await reports(world.service);
    assert.equal(kept?.error, error);
    // The VERP address still names the message: the operator sees whose report could not be read.
    assert.equal(kept?.messageId, msgid);
    // The next report on a new connection is served as usual.
    await deliver(world.port, { from: '', to: verp(world, msgid) }, fixture(world, 'dsn-failed-permanent.eml', { msgid }));
    assert.equal((await messageView(world, msgid)).status, 'bounced');
  });
}

test('a message with NUL bytes and bytes that are not UTF-8 is kept as text', async (t) => {
  const world = await startWorld(t);
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: world.port, secure: false, ignoreTLS: true });
  t.after(() => transport.close());
  const raw = Buffer.concat([Buffer.from('Subject: odd\r\n\r\nnul:'), Buffer.from([0x00, 0xff, 0xfe]), Buffer.from('\r\n')]);

  const info = await transport.sendMail({ envelope: { from: '', to: [`postmaster@${BOUNCE_DOMAIN}`] }, raw });

  assert.match(info.response, /^250 /);
  const [kept] = await reports(world.service);
  const full = (await adminGet(world.service, `/admin/v1/inbound-reports/${String(kept?.id)}`)).json();
  assert.equal(full.raw, 'Subject: odd\r\n\r\nnul:\uFFFD\uFFFD\uFFFD\r\n');
});

test('a report for a msgid this installation does not know is kept and accepted', async (t) => {
  const world = await startWorld(t);
  const stranger = '01960000-0000-7000-8000-0000000000ff';

  const reply = await deliver(world.port, { from: '', to: verp(world, stranger) }, fixture(world, 'dsn-failed-permanent.eml', { msgid: stranger }));

  assert.match(reply, /^250 /);
  const [kept] = await reports(world.service);
  assert.deepStrictEqual([kept?.kind, kept?.messageId, kept?.error], ['dsn', null, `unknown message ${stranger}`]);
});

test('a DSN for a message that never left (dropped) is kept with why and changes nothing', async (t) => {
  const world = await startWorld(t);
  const first = await sentEmail(world);
  await deliver(world.port, { from: '', to: verp(world, first) }, fixture(world, 'dsn-failed-permanent.eml', { msgid: first }));
  const dropped = await sentEmail(world);

  await deliver(world.port, { from: '', to: verp(world, dropped) }, fixture(world, 'dsn-failed-permanent.eml', { msgid: dropped }));

  assert.equal((await messageView(world, dropped)).status, 'dropped');
  const [kept] = await reports(world.service);
  assert.deepStrictEqual([kept?.messageId, kept?.error], [dropped, `message ${dropped} is dropped: the report does not apply`]);
});

for (const foreign of [`ana@${BOUNCE_DOMAIN}`, `b+not-a-msgid@${BOUNCE_DOMAIN}`, 'postmaster@example.org', 'b+01960000-0000-7000-8000-0000000000ff@example.org']) {
  test(`RCPT TO ${foreign} is refused with 550 and nothing is kept`, async (t) => {
    const world = await startWorld(t);

    await assert.rejects(deliver(world.port, { from: 'someone@example.org', to: foreign }, 'Subject: hi\r\n\r\nhello\r\n'), {
      responseCode: 550, response: `550 5.1.1 <${foreign}>: no such recipient here`,
    });
    assert.deepStrictEqual(await reports(world.service), []);
  });
}

test('a listener with no certificate does not offer STARTTLS', async (t) => {
  const world = await startWorld(t);
  await assert.rejects(deliver(world.port, { from: '', to: `postmaster@${BOUNCE_DOMAIN}` }, 'Subject: x\r\n\r\nx\r\n', { requireTLS: true }), { code: 'ETLS' });
});

test('with HERALD_INBOUND_SMTP_TLS_KEY and _CERT the listener takes reports over STARTTLS', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'herald-inbound-tls-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { key, cert } = getTLSOptions();
  writeFileSync(join(dir, 'key.pem'), String(key));
  writeFileSync(join(dir, 'cert.pem'), String(cert));
  const world = await startWorld(t, { HERALD_INBOUND_SMTP_TLS_KEY: join(dir, 'key.pem'), HERALD_INBOUND_SMTP_TLS_CERT: join(dir, 'cert.pem') });
  const msgid = await sentEmail(world);

  const reply = await deliver(world.port, { from: '', to: verp(world, msgid) }, fixture(world, 'dsn-failed-permanent.eml', { msgid }), { requireTLS: true });

  assert.match(reply, /^250 /);
  assert.equal((await messageView(world, msgid)).status, 'bounced');
});

test('with HERALD_INBOUND_SMTP_PORT unset no listener runs', async (t) => {
  const service = await startService(t);
  assert.equal(service.inboundSmtpPort, undefined);
});

// ---- the listener alone, with a receive of the test's own ----

async function listener(t: TestContext, options: { maxBytes?: number; receive?: (raw: Buffer) => Promise<void> } = {}): Promise<{ listener: InboundListener; received: Buffer[] }> {
  const received: Buffer[] = [];
  const started = await startInboundListener({
    port: 0, host: '127.0.0.1', bounceDomain: BOUNCE_DOMAIN, logger: pino({ level: 'silent' }),
    ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
    receive: async (_envelope, raw) => {
      await options.receive?.(raw);
      received.push(raw);
    },
  });
  t.after(() => started.close());
  return { listener: started, received };
}

test('a message over the size limit is refused with 552 and not handed on', async (t) => {
  const { listener: inbound, received } = await listener(t, { maxBytes: 2048 });

  await assert.rejects(deliver(inbound.port, { from: '', to: `postmaster@${BOUNCE_DOMAIN}` }, `Subject: big\r\n\r\n${'x'.repeat(4096)}\r\n`), { responseCode: 552 });
  assert.deepStrictEqual(received, []);
});

test('when the report cannot be kept the listener answers 451 so the sender retries', async (t) => {
  const { listener: inbound } = await listener(t, { receive: async () => { throw new Error('store is down'); } });

  await assert.rejects(deliver(inbound.port, { from: '', to: `postmaster@${BOUNCE_DOMAIN}` }, 'Subject: x\r\n\r\nx\r\n'), {
    responseCode: 451, response: '451 4.3.0 Could not keep the message, try again later',
  });
});

test('a second recipient in one transaction is refused with 452 and the first is served', async (t) => {
  const { listener: inbound, received } = await listener(t);
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: inbound.port, secure: false, ignoreTLS: true });
  t.after(() => transport.close());

  const info = await transport.sendMail({ envelope: { from: '', to: [`postmaster@${BOUNCE_DOMAIN}`, `abuse@${BOUNCE_DOMAIN}`] }, raw: 'Subject: x\r\n\r\nx\r\n' });

  assert.deepStrictEqual(info.accepted, [`postmaster@${BOUNCE_DOMAIN}`]);
  assert.deepStrictEqual(info.rejected, [`abuse@${BOUNCE_DOMAIN}`]);
  assert.equal(received.length, 1);
});

test('a listener on a port already taken fails to start with EADDRINUSE', async (t) => {
  const { listener: first } = await listener(t);
  await assert.rejects(
    startInboundListener({ port: first.port, host: '127.0.0.1', bounceDomain: BOUNCE_DOMAIN, logger: pino({ level: 'silent' }), receive: async () => {} }),
    { code: 'EADDRINUSE' },
  );
});
