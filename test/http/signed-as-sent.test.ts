// What is signed is what is sent, through the whole service: a template send whose
// variable carries bare CRs is relayed over SMTP to a loopback peer, where its DKIM
// signature must verify and, when certified, its receipt hash must match.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import nodemailer from 'nodemailer';
import { createAccount } from '../../src/app/create-account.ts';
import type { Service } from '../../src/service.ts';
import { startSmtpSink, type SmtpSink } from '../peers/smtp-sink.ts';
import { dkimSignedExampleCom, type DkimResolver } from '../support/dkim-domain.ts';
import { emailBody, get, post, startService, type TestAccount } from '../support/service.ts';

const START = Date.UTC(2026, 2, 2, 9, 30, 0);
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

interface Relayed {
  readonly service: Service;
  readonly sink: SmtpSink;
  readonly account: TestAccount;
  readonly resolver: DkimResolver;
}

/**
 * A service relaying to a loopback SMTP peer (or capturing, with `capture`), and an
 * account whose example.com key is published in a loopback DNS peer.
 */
async function relayedService(t: TestContext, transport: 'relay' | 'capture' = 'relay'): Promise<Relayed> {
  const sink = await startSmtpSink({ starttls: false });
  t.after(() => sink.close());
  const env: Record<string, string> = transport === 'relay' ? { HERALD_EMAIL_TRANSPORT: `smtp://${sink.host}:${sink.port}` } : {};
  const service = await startService(t, { clock: () => START, env });
  const { account, apiKey } = await createAccount(service.deps, { name: 'acme', messagesLeft: 100, rateLimitPerSecond: 100 });
  const resolver = await dkimSignedExampleCom(t, service, account.id, START);
  return { service, sink, account: { id: account.id, apiKey: apiKey.apiKey }, resolver };
}

/** Sends the note template with a variable full of bare CRs and LFs, and lets the worker deliver it. */
async function sendNote(r: Relayed, overrides: Record<string, unknown> = {}): Promise<string> {
  const template = await post(r.service, '/v1/email/templates', r.account.apiKey, { name: 'Note', html: '<p>{{note}}</p>', text: 'Note:\r{{note}}\n' });
  assert.equal(template.statusCode, 201, template.body);
  const res = await post(r.service, '/v1/email', r.account.apiKey, emailBody({
    body: undefined, template_id: template.json().template_id, variables: { note: 'line one\rline two\nline three\r' }, ...overrides,
  }));
  assert.equal(res.statusCode, 200, res.body);
  await r.service.worker.drain();
  return res.json().to[0].msgid as string;
}

test('a template send whose variable carries bare CRs arrives at the SMTP peer with a DKIM signature that verifies there', async (t) => {
  const r = await relayedService(t);
  await sendNote(r);
  const received = r.sink.messages[0]?.raw ?? Buffer.alloc(0);
  const result = await dkimVerify(received, { resolver: r.resolver });
  assert.deepStrictEqual(result.results.map((x) => [x.status.result, x.signingDomain]), [['pass', 'example.com']]);
});

test('the receipt of a certified template send with bare CRs certifies the SHA-256 of the bytes the SMTP peer received', async (t) => {
  const r = await relayedService(t);
  const msgid = await sendNote(r, { certified: true });
  const received = r.sink.messages[0]?.raw ?? Buffer.alloc(0);
  const certificate = await get(r.service, `/v1/email/${msgid}/certificate`, r.account.apiKey);
  assert.equal(certificate.statusCode, 200, certificate.body);
  assert.equal(certificate.json().evidence.sha256, sha256(received));
});

test('the certified .eml of a template send with bare CRs is the bytes the SMTP peer received, and its DKIM signature verifies', async (t) => {
  const r = await relayedService(t);
  const msgid = await sendNote(r, { certified: true });
  const eml = await get(r.service, `/v1/email/${msgid}/certificate.eml`, r.account.apiKey);
  assert.equal(sha256(eml.rawPayload), sha256(r.sink.messages[0]?.raw ?? Buffer.alloc(0)));
  const result = await dkimVerify(eml.rawPayload, { resolver: r.resolver });
  assert.deepStrictEqual(result.results.map((x) => [x.status.result, x.signingDomain]), [['pass', 'example.com']]);
});

test('a captured template send whose variable carries bare CRs, relayed as captured to an SMTP peer, arrives unchanged and its DKIM signature verifies there', async (t) => {
  const r = await relayedService(t, 'capture');
  const msgid = await sendNote(r);
  const captured = await get(r.service, `/v1/messages/${msgid}/raw`, r.account.apiKey);
  assert.equal(captured.statusCode, 200);
  const mailer = nodemailer.createTransport({ host: r.sink.host, port: r.sink.port, secure: false, ignoreTLS: true });
  t.after(() => mailer.close());
  await mailer.sendMail({ envelope: { from: `b+${msgid}@bounces.example.com`, to: ['ana@example.org'] }, raw: captured.rawPayload });
  const received = r.sink.messages[0]?.raw ?? Buffer.alloc(0);
  assert.equal(sha256(received), sha256(captured.rawPayload));
  const result = await dkimVerify(received, { resolver: r.resolver });
  assert.deepStrictEqual(result.results.map((x) => [x.status.result, x.signingDomain]), [['pass', 'example.com']]);
});
