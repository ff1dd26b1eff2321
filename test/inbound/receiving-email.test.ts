// Mail to an account's receiving domain through the inbound listener, sent by real SMTP
// clients (nodemailer, Debian's swaks) on 127.0.0.1: checked with mailauth against a
// loopback DNS server that publishes the sender's SPF, DKIM key and DMARC policy, read
// with mailparser, and stored and posted as `email.received` (app/receive-inbound.ts),
// forwarded, or refused.
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { readFile } from 'node:fs/promises';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import pino from 'pino';
import { simpleParser } from 'mailparser';
import { addReceivingDomain, markReceivingDomainVerifiedByName, setReceivingDomainRules, type WireRule } from '../../src/app/receiving-domains.ts';
import type { InboundMessage } from '../../src/domain/inbound-message.ts';
import { emailReceiver } from '../../src/inbound/email-receiver.ts';
import { startInboundListener } from '../../src/inbound/listener.ts';
import type { Service } from '../../src/service.ts';
import { findInboundAttachment, listInbound } from '../../src/store/inbound-messages.ts';
import { listDeliveries } from '../../src/store/webhook-deliveries.ts';
import { setWebhookTarget } from '../../src/store/webhook-settings.ts';
import { startDnsServer } from '../peers/dns-server.ts';
import { runToEnd } from '../support/child-process.ts';
import { makeSelfSignedCert } from '../support/self-signed-cert.ts';
import { emailBody, get, openAccount, post, readAccount, startService, type TestAccount } from '../support/service.ts';

const T0 = Date.parse('2030-01-02T03:04:05.000Z');
const PUBLIC_URL = 'https://herald.test';
const SENDER_DOMAIN = 'sender.example';
const SELECTOR = 's1';
const silent = pino({ level: 'silent' });

// The sender's domain signs with a key of its own (1024 bits: mailauth's minimum, quick to make).
const senderKey = generateKeyPairSync('rsa', { modulusLength: 1024 });
const senderPublicKey = senderKey.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
const senderPrivateKey = senderKey.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

const swaksMissing: string | false = spawnSync('swaks', ['--version']).error === undefined ? false : 'swaks is not installed (apt-get install swaks libnet-ssleay-perl)';

// One service and one DNS server for the file (a service takes ~0.3 s to start); each
// test has an account, a receiving domain and a listener of its own.
const cleanups: (() => unknown)[] = [];
const fileScope = { after: (fn: () => unknown) => cleanups.push(fn) } as unknown as TestContext;
let service: Service;
let resolve: (name: string, type: string) => Promise<string[][]>;

before(async () => {
  service = await startService(fileScope, { clock: () => T0, env: { HERALD_PUBLIC_URL: PUBLIC_URL } });
  const dns = await startDnsServer();
  cleanups.push(() => dns.close());
  const txt = (name: string, text: string) => dns.set(name, [{ type: 'TXT', name, ttl: 60, data: text.match(/.{1,255}/g) ?? [] }]);
  txt(SENDER_DOMAIN, 'v=spf1 ip4:127.0.0.1 -all');
  txt(`${SELECTOR}._domainkey.${SENDER_DOMAIN}`, `v=DKIM1; k=rsa; p=${senderPublicKey}`);
  txt(`_dmarc.${SENDER_DOMAIN}`, 'v=DMARC1; p=reject');
  const resolver = new Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers([dns.server]);
  resolve = (name, type) => resolver.resolve(name, type) as Promise<string[][]>;
});
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

interface World {
  readonly account: TestAccount;
  /** The test's receiving domain, verified. */
  readonly domain: string;
  readonly port: number;
}

/** What the account received, oldest first. */
const received = async (world: World): Promise<InboundMessage[]> => (await listInbound(service.deps.db, world.account.id, { limit: 20 })).reverse();

let worlds = 0;

async function startWorld(t: TestContext, options: { maxBytes?: number; rules?: WireRule[]; tls?: { key: Buffer; cert: Buffer } } = {}): Promise<World> {
  const account = await openAccount(service);
  const domain = `in${++worlds}.acme.test`;
  const added = await addReceivingDomain(service.deps, account.id, { domain });
  assert.ok(added.ok);
  assert.ok((await markReceivingDomainVerifiedByName(service.deps, domain)).ok);
  if (options.rules !== undefined) assert.ok((await setReceivingDomainRules(service.deps, account.id, added.value.id, options.rules)).ok);

  await setWebhookTarget(service.deps.db, account.id, { url: 'https://hooks.acme.test/herald' }, T0);
  const listener = await startInboundListener({
    port: 0, host: '127.0.0.1', bounceDomain: 'bounces.herald.test', logger: silent, receive: async () => {},
    ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
    ...(options.tls === undefined ? {} : { tls: options.tls }),
    receiving: emailReceiver(service.deps, resolve, 'mx.herald.test', silent),
  });
  t.after(() => listener.close());
  return { account, domain, port: listener.port };
}

/** The message as nodemailer writes it (CRLF), DKIM-signed by the sender's domain unless `signed` is false. */
async function compose(mail: Mail.Options, signed = true): Promise<Buffer> {
  const writer = nodemailer.createTransport({
    streamTransport: true, buffer: true, newline: 'windows',
    ...(signed ? { dkim: { domainName: SENDER_DOMAIN, keySelector: SELECTOR, privateKey: senderPrivateKey } } : {}),
  });
  const info = await writer.sendMail(mail);
  return info.message as Buffer;
}

/** One SMTP transaction; resolves with the reply to DATA, rejects with the refusal. */
async function deliver(port: number, to: readonly string[], raw: Buffer | string, from = `ana@${SENDER_DOMAIN}`): Promise<string> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, name: `mail.${SENDER_DOMAIN}` });
  try {
    return (await transport.sendMail({ envelope: { from, to: [...to] }, raw })).response;
  } finally {
    transport.close();
  }
}

const letter = (world: World): Mail.Options => ({
  from: `Ana Pérez <Ana@${SENDER_DOMAIN}>`,
  to: `support@${world.domain}`,
  cc: `Bo <bo@${SENDER_DOMAIN}>, carla@elsewhere.example`,
  subject: 'Order 1234 — broken',
  text: 'The kettle arrived broken.\r\n',
  html: '<p>The kettle arrived <b>broken</b>.</p>',
  messageId: `<order-1234@${SENDER_DOMAIN}>`,
  date: new Date(T0 - 60_000),
  attachments: [{ filename: 'photo.png', contentType: 'image/png', content: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]) }],
});

test('a signed message to a receiving domain is stored and posted as email.received with its fields, attachments, raw form and passing checks', async (t) => {
  const world = await startWorld(t);
  const raw = await compose(letter(world));

  assert.match(await deliver(world.port, [`Support@${world.domain}`], raw), /^250 /);

  const [message, ...others] = await received(world);
  assert.ok(message !== undefined);
  assert.deepStrictEqual(others, []);
  const [eml, photo] = message.attachments;
  assert.ok(eml !== undefined && photo !== undefined);
  const attachment = (a: typeof eml) => ({ id: a.id, filename: a.filename, content_type: a.contentType, size: a.size, state: 'stored', url: `${PUBLIC_URL}/v1/inbound/${message.id}/attachments/${a.id}` });
  const [delivery] = await listDeliveries(service.deps.db, world.account.id, { limit: 5 });
  const posted = JSON.parse(delivery?.payload ?? '{}');
  const { headers, ...data } = posted.data;
  assert.deepStrictEqual({ ...posted, data }, {
    type: 'email.received', timestamp: '2030-01-02T03:04:05.000Z',
    data: {
      id: message.id, account: world.account.id, channel: 'email', from: `ana@${SENDER_DOMAIN}`, to: `support@${world.domain}`,
      text: 'The kettle arrived broken.\n', received_at: '2030-01-02T03:04:05.000Z',
      subject: 'Order 1234 — broken', html: '<p>The kettle arrived <b>broken</b>.</p>', cc: [`bo@${SENDER_DOMAIN}`, 'carla@elsewhere.example'],
      authentication: { spf: 'pass', dkim: 'pass', dmarc: 'pass' }, message_id: `<order-1234@${SENDER_DOMAIN}>`,
      attachments: [attachment(eml), attachment(photo)],
    },
  });
  assert.deepStrictEqual([eml.filename, eml.contentType, eml.size, photo.filename, photo.contentType, photo.size], ['message.eml', 'message/rfc822', raw.length, 'photo.png', 'image/png', 8]);
  assert.deepStrictEqual((headers as { name: string }[]).map((h) => h.name),
    ['DKIM-Signature', 'From', 'To', 'Cc', 'Subject', 'Message-ID', 'Date', 'MIME-Version', 'Content-Type']);
  assert.deepStrictEqual((headers as { name: string; value: string }[])[4], { name: 'Subject', value: '=?UTF-8?Q?Order_1234_=E2=80=94_broken?=' });
  const served = await get(service, `/v1/inbound/${message.id}/raw`, world.account.apiKey);
  assert.equal(served.headers['content-type'], 'message/rfc822');
  assert.deepStrictEqual(served.rawPayload, raw);
  assert.deepStrictEqual((await findInboundAttachment(service.deps.db, world.account.id, message.id, photo.id))?.content, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));
});

test('the same message delivered again (the sender retrying) is stored once', async (t) => {
  const world = await startWorld(t);
  const raw = await compose(letter(world), false);

  await deliver(world.port, [`support@${world.domain}`], raw);
  assert.match(await deliver(world.port, [`support@${world.domain}`], raw), /^250 /);

  assert.equal((await received(world)).length, 1);
});

test('a message whose signed subject was altered fails DKIM, and DMARC with it when SPF does not align', async (t) => {
  const world = await startWorld(t);
  const raw = (await compose(letter(world))).toString('utf8').replace('Order_1234', 'Order_9999');

  // Relayed: the envelope sender is the relay's, which publishes no SPF.
  assert.match(await deliver(world.port, [`support@${world.domain}`], raw, 'list@relay.example'), /^250 /);

  const [message] = await received(world);
  assert.equal(message?.content?.['subject'], 'Order 9999 — broken');
  assert.deepStrictEqual(message?.content?.['authentication'], { spf: 'none', dkim: 'fail', dmarc: 'fail' });
});

test('a reply naming a herald Message-ID of the account carries that message\'s msgid', async (t) => {
  const world = await startWorld(t);
  const sent = await post(service, '/v1/email', world.account.apiKey, emailBody({ to: [{ email: `ana@${SENDER_DOMAIN}` }] }));
  assert.equal(sent.statusCode, 200);
  const msgid: string = sent.json().to[0].msgid;
  const raw = await compose({
    ...letter(world), subject: 'Re: Hello', attachments: [],
    inReplyTo: `<${msgid}@herald.test>`, references: [`<unknown@${SENDER_DOMAIN}>`, `<${msgid}@herald.test>`],
  });

  await deliver(world.port, [`support@${world.domain}`], raw);

  assert.equal((await received(world))[0]?.replyTo, msgid);
});

test('a message over the size limit is refused with 552 5.3.4 and not handed on', async (t) => {
  const world = await startWorld(t, { maxBytes: 64 * 1024 });
  const raw = await compose({ ...letter(world), attachments: [{ filename: 'big.bin', content: Buffer.alloc(80 * 1024, 7) }] }, false);

  await assert.rejects(deliver(world.port, [`support@${world.domain}`], raw), { responseCode: 552, response: /^552 5\.3\.4 / });
  assert.deepStrictEqual(await received(world), []);
});

test('an address at a domain that is not a verified receiving domain is refused with 550 5.1.1', async (t) => {
  const world = await startWorld(t);
  const added = await addReceivingDomain(service.deps, world.account.id, { domain: `unverified${worlds}.acme.test` });
  assert.ok(added.ok);

  for (const to of ['support@nowhere.test', `support@unverified${worlds}.acme.test`]) {
    await assert.rejects(deliver(world.port, [to], 'Subject: x\r\n\r\nx\r\n'), { responseCode: 550, response: `550 5.1.1 <${to}>: no such recipient here` });
  }
  assert.deepStrictEqual(await received(world), []);
});

test('an address under a refuse rule is refused with 550 5.7.1 at RCPT TO; the others of the domain are taken', async (t) => {
  const world = await startWorld(t, { rules: [{ address: 'noreply', action: 'refuse' }] });

  await assert.rejects(deliver(world.port, [`NoReply@${world.domain}`], 'Subject: x\r\n\r\nx\r\n'), {
    responseCode: 550, response: `550 5.7.1 <NoReply@${world.domain}>: the domain does not take mail for this address`,
  });
  assert.match(await deliver(world.port, [`sales@${world.domain}`], 'Subject: x\r\n\r\nx\r\n'), /^250 /);
  assert.deepStrictEqual((await received(world)).map((m) => m.to), [`sales@${world.domain}`]);
});

test('a forward rule sends the message on as one billed email of the account with the original attached', async (t) => {
  const world = await startWorld(t, { rules: [{ address: 'desk', action: 'forward', forward_to: 'agent@helpdesk.example' }] });
  const before = (await readAccount(service, world.account.id)).messagesLeft;
  const raw = await compose({ ...letter(world), to: `desk@${world.domain}`, attachments: [] });

  assert.match(await deliver(world.port, [`desk@${world.domain}`], raw), /^250 /);

  assert.deepStrictEqual(await received(world), []);
  assert.equal((await readAccount(service, world.account.id)).messagesLeft, before - 1);
  await service.worker.drain();
  const listed = await get(service, '/v1/messages?limit=1', world.account.apiKey);
  const [message] = listed.json().data;
  assert.equal(message.recipient, 'agent@helpdesk.example');
  const mime = await get(service, `/v1/messages/${message.msgid}/raw`, world.account.apiKey);
  assert.equal(mime.statusCode, 200, mime.body);
  const forwarded = await simpleParser(mime.rawPayload, { ignoreEmbedded: true });
  assert.equal(forwarded.subject, 'Fwd: Order 1234 — broken');
  assert.equal(forwarded.from?.text, `desk@${world.domain}`);
  assert.equal(forwarded.replyTo?.text, `ana@${SENDER_DOMAIN}`);
  assert.deepStrictEqual(forwarded.attachments.map((a) => [a.filename, a.contentType]), [['message.eml', 'message/rfc822']]);
  assert.ok(forwarded.attachments[0]?.content.equals(raw));
});

test('swaks delivers over STARTTLS to two addresses of the domain: one message for each', { skip: swaksMissing }, async (t) => {
  const cert = await makeSelfSignedCert('mx.herald.test');
  t.after(() => cert.remove());
  const world = await startWorld(t, { tls: { key: await readFile(cert.keyFile), cert: await readFile(cert.certFile) } });

  const run = await runToEnd('swaks', [
    '--server', '127.0.0.1', '--port', String(world.port), '--tls', '--ehlo', `mail.${SENDER_DOMAIN}`,
    '--from', `ana@${SENDER_DOMAIN}`, '--to', `sales@${world.domain},billing@${world.domain}`,
    '--header', 'Subject: Sent by swaks', '--header', `Message-Id: <swaks-1@${SENDER_DOMAIN}>`, '--body', 'Hello from swaks',
  ], { ...process.env, LANG: 'C.UTF-8' });

  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout, /<~ {2}250 /);
  const messages = await received(world);
  assert.deepStrictEqual(messages.map((m) => [m.to, m.from, m.text, m.content?.['subject']]), [
    [`sales@${world.domain}`, `ana@${SENDER_DOMAIN}`, 'Hello from swaks\n\n\n', 'Sent by swaks'],
    [`billing@${world.domain}`, `ana@${SENDER_DOMAIN}`, 'Hello from swaks\n\n\n', 'Sent by swaks'],
  ]);
  // Unsigned, but the From is the envelope sender's, whose SPF passes: DMARC aligns through SPF.
  assert.deepStrictEqual(messages[0]?.content?.['authentication'], { spf: 'pass', dkim: 'none', dmarc: 'pass' });
});
