import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import nodemailer from 'nodemailer';
import { closedPort } from '../support/closed-port.ts';
import { makeSelfSignedCert } from '../support/self-signed-cert.ts';
import { skipWithoutPostfix, startPostfix, type PostfixOptions } from './postfix.ts';
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts';

// The Postfix peer as a submission server (bench/smtp-submit.ts): given a certificate,
// its smtpd offers STARTTLS with it and relays for loopback clients without AUTH.

const RELAY_NAME = 'relay.herald.test';
const TIMEOUT_MS = 30_000;

async function startRelay(t: TestContext, smtpdTls: PostfixOptions['smtpdTls']): Promise<{ port: number; sink: SmtpSink }> {
  const sink = await startSmtpSink({ starttls: false });
  t.after(() => sink.close());
  const relay = await startPostfix({ port: await closedPort(), hostname: RELAY_NAME, routes: { 'example.org': sink.port }, ...(smtpdTls === undefined ? {} : { smtpdTls }) });
  t.after(() => relay.close());
  return { port: relay.port, sink };
}

async function sinkHolds(sink: SmtpSink, count: number): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS / 2;
  while (sink.messages.length < count) {
    if (Date.now() > deadline) throw new Error(`the sink holds ${sink.messages.length} of ${count} messages`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('Postfix given a certificate presents it on STARTTLS and relays a loopback client\'s message without AUTH', { skip: skipWithoutPostfix, timeout: TIMEOUT_MS }, async (t) => {
  const cert = await makeSelfSignedCert(RELAY_NAME);
  t.after(() => cert.remove());
  const { port, sink } = await startRelay(t, cert);
  // Trusting that certificate alone: the handshake succeeds only if Postfix presents it.
  const client = nodemailer.createTransport({ host: '127.0.0.1', port, requireTLS: true, tls: { ca: await readFile(cert.certFile, 'utf8'), servername: RELAY_NAME } });
  t.after(() => client.close());
  await client.sendMail({ from: 'app@example.com', to: 'ana@example.org', subject: 'Hello', text: 'Hi Ana' });
  await sinkHolds(sink, 1);
  assert.deepEqual(sink.messages.map((m) => ({ mailFrom: m.mailFrom, rcptTo: m.rcptTo })), [{ mailFrom: 'app@example.com', rcptTo: ['ana@example.org'] }]);
});

test('Postfix without a certificate offers no STARTTLS', { skip: skipWithoutPostfix, timeout: TIMEOUT_MS }, async (t) => {
  const { port } = await startRelay(t, undefined);
  const client = nodemailer.createTransport({ host: '127.0.0.1', port, requireTLS: true });
  t.after(() => client.close());
  await assert.rejects(client.sendMail({ from: 'app@example.com', to: 'ana@example.org', subject: 'Hello', text: 'Hi Ana' }), { code: 'ETLS' });
});
