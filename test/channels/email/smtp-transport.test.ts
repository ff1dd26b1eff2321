import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { unsubscribeUrl } from '../../../src/channels/email/compose.ts';
import { parseRelayUrl } from '../../../src/channels/email/relay-url.ts';
import { smtpRelayTransport, type SmtpRelayOptions } from '../../../src/channels/email/smtp-transport.ts';
import { ACCOUNT, FIXED_TIME, MSGID, PAYLOAD, SETTINGS, VERP_FROM, dkimFixture, header, headerFields, noAttachments, outbound, publishDkimKey, startDns, startSink } from './fixtures.ts';

const signal = new AbortController().signal;

function relay(t: TestContext, options: Omit<SmtpRelayOptions, keyof typeof SETTINGS | 'resolveAttachments'> & Partial<SmtpRelayOptions>) {
  // The sink's certificate is smtp-server's self-signed one.
  const transport = smtpRelayTransport({ ...SETTINGS, resolveAttachments: noAttachments, tls: { rejectUnauthorized: false }, ...options });
  t.after(() => transport.close());
  return transport;
}

test('a relayed message reaches the relay with the VERP envelope sender and the recipient alone as envelope recipient', async (t) => {
  const sink = await startSink(t);
  const transport = relay(t, { url: `smtp://127.0.0.1:${sink.port}` });
  await transport.send(outbound({ recipient: 'bea@example.org' }), signal);
  assert.equal(sink.messages.length, 1);
  assert.equal(sink.messages[0]?.mailFrom, VERP_FROM);
  assert.deepStrictEqual(sink.messages[0]?.rcptTo, ['bea@example.org']);
});

test('acceptance by the relay is accepted with its words, not delivered', async (t) => {
  const sink = await startSink(t);
  const transport = relay(t, { url: `smtp://127.0.0.1:${sink.port}` });
  assert.deepStrictEqual(await transport.send(outbound(), signal), { kind: 'accepted', peer: `127.0.0.1:${sink.port}`, response: '250 OK: message queued' });
});

test('a relay that offers DSN is asked for notices of success, failure and delay, by msgid, with the headers only', async (t) => {
  const sink = await startSink(t, { dsn: true });
  const transport = relay(t, { url: `smtp://127.0.0.1:${sink.port}` });
  await transport.send(outbound({ recipient: 'bea@example.org' }), signal);
  assert.deepStrictEqual(sink.messages[0]?.dsn, { ret: 'HDRS', envid: MSGID, notify: ['SUCCESS', 'FAILURE', 'DELAY'], orcpt: 'rfc822;bea@example.org' });
});

test('an smtps:// relay that offers DSN is asked for the same notices over TLS from the start', async (t) => {
  const sink = await startSink(t, { dsn: true, implicitTls: true });
  const transport = relay(t, { url: `smtps://127.0.0.1:${sink.port}` });
  await transport.send(outbound(), signal);
  assert.equal(sink.messages[0]?.secure, true);
  assert.deepStrictEqual(sink.messages[0]?.dsn, { ret: 'HDRS', envid: MSGID, notify: ['SUCCESS', 'FAILURE', 'DELAY'], orcpt: 'rfc822;ana@example.org' });
});

test('a certified message through a relay that offers DSN asks for the same notices', async (t) => {
  const sink = await startSink(t, { dsn: true });
  const transport = relay(t, { url: `smtp://127.0.0.1:${sink.port}` });
  await transport.send(outbound({ payload: { ...PAYLOAD, certified: true } }), signal);
  assert.deepStrictEqual(sink.messages[0]?.dsn, { ret: 'HDRS', envid: MSGID, notify: ['SUCCESS', 'FAILURE', 'DELAY'], orcpt: 'rfc822;ana@example.org' });
});

test('an internationalised recipient is sent without ORCPT, the rest of the DSN request unchanged', async (t) => {
  const sink = await startSink(t, { dsn: true });
  const transport = relay(t, { url: `smtp://127.0.0.1:${sink.port}` });
  await transport.send(outbound({ recipient: 'jösé@example.org' }), signal);
  assert.deepStrictEqual(sink.messages[0]?.dsn, { ret: 'HDRS', envid: MSGID, notify: ['SUCCESS', 'FAILURE', 'DELAY'], orcpt: null });
});

test('a relay that does not offer DSN gets no DSN parameters and takes the message', async (t) => {
  const sink = await startSink(t, { dsn: false });
  const transport = relay(t, { url: `smtp://127.0.0.1:${sink.port}` });
  assert.equal((await transport.send(outbound(), signal)).kind, 'accepted');
  assert.equal(sink.messages[0]?.dsn, undefined);
});

test('with ?delivered=accepted the relay\'s 250 is delivered, and only failures and delays are asked for', async (t) => {
  const sink = await startSink(t, { dsn: true });
  const transport = relay(t, { url: `smtp://127.0.0.1:${sink.port}?delivered=accepted` });
  assert.deepStrictEqual(await transport.send(outbound(), signal), {
    kind: 'accepted', peer: `127.0.0.1:${sink.port}`, response: '250 OK: message queued', delivered: true,
  });
  assert.deepStrictEqual(sink.messages[0]?.dsn?.notify, ['FAILURE', 'DELAY']);
});

test('the relayed message carries Message-ID, one-click unsubscribe headers and no Bcc header', async (t) => {
  const sink = await startSink(t);
  const transport = relay(t, { url: `smtp://127.0.0.1:${sink.port}` });
  await transport.send(outbound({ recipient: 'bea@example.org' }), signal);
  const raw = sink.messages[0]?.raw ?? Buffer.alloc(0);
  assert.equal(header(raw, 'Message-ID'), `<${MSGID}@herald.example.com>`);
  assert.equal(header(raw, 'List-Unsubscribe'), `<${await unsubscribeUrl(SETTINGS, { msgid: MSGID, accountId: ACCOUNT }, FIXED_TIME)}>`);
  assert.equal(header(raw, 'List-Unsubscribe-Post'), 'List-Unsubscribe=One-Click');
  assert.equal(headerFields(raw).filter((f) => /^bcc:/i.test(f)).length, 0);
});

test('the relay session is upgraded with STARTTLS when the relay offers it', async (t) => {
  const sink = await startSink(t);
  const transport = relay(t, { url: `smtp://127.0.0.1:${sink.port}` });
  await transport.send(outbound(), signal);
  assert.equal(sink.messages[0]?.secure, true);
});

test('a relay whose certificate does not verify defers the message instead of falling back to plain text', async (t) => {
  const sink = await startSink(t);
  const transport = smtpRelayTransport({ ...SETTINGS, url: `smtp://127.0.0.1:${sink.port}`, resolveAttachments: noAttachments });
  t.after(() => transport.close());
  // smtp-server's bundled certificate has expired, which is as unverifiable as it gets.
  assert.deepStrictEqual(await transport.send(outbound(), signal), {
    kind: 'deferred', peer: `127.0.0.1:${sink.port}`, response: 'ESOCKET CERT_HAS_EXPIRED: certificate has expired',
  });
  assert.equal(sink.messages.length, 0);
});

test('the credentials of the relay URL are used to log in', async (t) => {
  const sink = await startSink(t, { auth: { user: 'relay-user', pass: 'p@ss word' } });
  const transport = relay(t, { url: `smtp://relay-user:p%40ss%20word@127.0.0.1:${sink.port}` });
  assert.equal((await transport.send(outbound(), signal)).kind, 'accepted');
  assert.equal(sink.messages[0]?.user, 'relay-user');
});

test('refused credentials defer the message and the outcome names neither user nor password', async (t) => {
  const sink = await startSink(t, { auth: { user: 'relay-user', pass: 'right-password' } });
  const transport = relay(t, { url: `smtp://relay-user:wrong-password@127.0.0.1:${sink.port}` });
  const outcome = await transport.send(outbound(), signal);
  assert.deepStrictEqual(outcome, { kind: 'deferred', peer: `127.0.0.1:${sink.port}`, response: '535 5.7.8 Authentication credentials invalid' });
  assert.ok(!JSON.stringify(outcome).includes('wrong-password') && !JSON.stringify(outcome).includes('relay-user'));
});

test('the DKIM signature of a relayed message verifies against the key published in DNS', async (t) => {
  const sink = await startSink(t);
  const { dns, resolver } = await startDns(t);
  const key = dkimFixture();
  publishDkimKey(dns, key);
  const transport = relay(t, { url: `smtp://127.0.0.1:${sink.port}`, dkim: key.lookup });
  await transport.send(outbound(), signal);
  const result = await dkimVerify(sink.messages[0]?.raw ?? Buffer.alloc(0), {
    resolver: (name, type) => resolver.resolve(name, type) as Promise<string[][]>,
  });
  assert.deepStrictEqual(result.results.map((r) => [r.status.result, r.signingDomain, r.selector]), [['pass', 'example.com', 'herald202407']]);
});

test('a 450 to RCPT TO defers the message with the relay words', async (t) => {
  const sink = await startSink(t);
  const transport = relay(t, { url: `smtp://127.0.0.1:${sink.port}` });
  sink.failNext({ stage: 'rcpt', code: 450, message: '4.2.1 <ana@example.org>: mailbox busy, try later' });
  assert.deepStrictEqual(await transport.send(outbound(), signal), {
    kind: 'deferred', peer: `127.0.0.1:${sink.port}`, response: '450 4.2.1 <ana@example.org>: mailbox busy, try later',
  });
});

test('a 550 to RCPT TO fails the message as bounced after it left the house, with the relay words', async (t) => {
  const sink = await startSink(t);
  const transport = relay(t, { url: `smtp://127.0.0.1:${sink.port}` });
  sink.failNext({ stage: 'rcpt', code: 550, message: '5.1.1 <ana@example.org>: user unknown' });
  assert.deepStrictEqual(await transport.send(outbound(), signal), {
    kind: 'failed', peer: `127.0.0.1:${sink.port}`, response: '550 5.1.1 <ana@example.org>: user unknown', leftTheHouse: true, bounced: true,
    details: { bounce_type: 'hard', status_code: '5.1.1', diagnostic: '550 5.1.1 <ana@example.org>: user unknown', source: 'smtp' },
  });
});

test('a 554 after DATA fails the message as bounced with the relay words', async (t) => {
  const sink = await startSink(t);
  const transport = relay(t, { url: `smtp://127.0.0.1:${sink.port}` });
  sink.failNext({ stage: 'data', code: 554, message: '5.7.1 message content rejected' });
  assert.deepStrictEqual(await transport.send(outbound(), signal), {
    kind: 'failed', peer: `127.0.0.1:${sink.port}`, response: '554 5.7.1 message content rejected', leftTheHouse: true, bounced: true,
    details: { bounce_type: 'soft', status_code: '5.7.1', diagnostic: '554 5.7.1 message content rejected', source: 'smtp' },
  });
});

test('a relay that refuses the connection defers the message', async (t) => {
  const sink = await startSink(t);
  await sink.refuseConnections(true);
  const transport = relay(t, { url: `smtp://127.0.0.1:${sink.port}` });
  assert.deepStrictEqual(await transport.send(outbound(), signal), {
    kind: 'deferred', peer: `127.0.0.1:${sink.port}`, response: `ESOCKET ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:${sink.port}`,
  });
});

test('a relay that never greets defers the message once the greeting time-out passes', async (t) => {
  // A TCP server that accepts and stays silent.
  const sockets: Socket[] = [];
  const silent = createServer((socket) => { sockets.push(socket); });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => {
    for (const socket of sockets) socket.destroy();
    silent.close(() => resolve());
  }));
  const port = (silent.address() as AddressInfo).port;
  const transport = relay(t, { url: `smtp://127.0.0.1:${port}`, timeouts: { greetingTimeout: 200 } });
  const outcome = await transport.send(outbound(), signal);
  assert.equal(outcome.kind, 'deferred');
  assert.match(outcome.response, /^ETIMEDOUT: /);
});

test('messages to the relay share one pooled connection', async (t) => {
  const sink = await startSink(t);
  const transport = relay(t, { url: `smtp://127.0.0.1:${sink.port}` });
  await transport.send(outbound({ recipient: 'ana@example.org' }), signal);
  await transport.send(outbound({ recipient: 'bob@example.org' }), signal);
  assert.deepStrictEqual(sink.messages.map((m) => m.connection), [1, 1]);
  assert.equal(sink.connections(), 1);
});

test('the relay URL gives host, port, TLS mode and percent-decoded credentials', () => {
  assert.deepStrictEqual(parseRelayUrl('smtps://me%40example.com:p%3Ass@relay.example.net'), {
    host: 'relay.example.net', port: 465, secure: true, auth: { user: 'me@example.com', pass: 'p:ss' }, delivered: 'notice',
  });
  assert.deepStrictEqual(parseRelayUrl('smtp://relay.example.net'), { host: 'relay.example.net', port: 587, secure: false, auth: undefined, delivered: 'notice' });
});

test('the relay URL option delivered is notice (the default) or accepted', () => {
  assert.deepStrictEqual(['', '?delivered=notice', '?delivered=accepted'].map((q) => parseRelayUrl(`smtp://relay.example.net${q}`).delivered), ['notice', 'notice', 'accepted']);
});

test('a relay URL with an unknown option or value is refused, naming what is allowed', () => {
  assert.throws(() => parseRelayUrl('smtp://relay.example.net?deliverd=accepted'), { message: 'the SMTP relay URL has an unknown option "deliverd"; known: delivered' });
  assert.throws(() => parseRelayUrl('smtp://relay.example.net?delivered=yes'), { message: 'the SMTP relay URL option "delivered" must be one of notice, accepted' });
});

test('a relay URL that does not parse is refused without echoing it', () => {
  assert.throws(() => parseRelayUrl('smtp://user:secret@'), { message: 'the SMTP relay URL does not parse' });
});
