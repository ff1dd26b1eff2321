// What is signed is what is sent: bodies with bare CRs and LFs go through the capture
// transport and through SMTP to a loopback peer; the capture must equal the peer's
// bytes, and the DKIM signature and the certified hash must hold there.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Resolver } from 'node:dns/promises';
import nodemailer from 'nodemailer';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import type { CaptureSink } from '../../../src/channels/channel.ts';
import type { AttachmentResolver } from '../../../src/channels/email/compose.ts';
import { emailCaptureTransport } from '../../../src/channels/email/capture-transport.ts';
import { smtpRelayTransport } from '../../../src/channels/email/smtp-transport.ts';
import type { EmailPayload, Outbound } from '../../../src/domain/outbound.ts';
import type { SmtpSink } from '../../peers/smtp-sink.ts';
import { PAYLOAD, SETTINGS, dkimFixture, noAttachments, outbound, publishDkimKey, startDns, startSink } from './fixtures.ts';

const signal = new AbortController().signal;
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** Short ASCII lines, so nodemailer sends both bodies 7bit, as they are. */
const BARE_BREAKS: EmailPayload = { ...PAYLOAD, html: '<p>Hello\rAna</p>\n<p>bye</p>\r', text: 'Hello\rAna\nbye\r\n\rend' };

interface Harness {
  readonly sink: SmtpSink;
  readonly resolver: Resolver;
  /** Sends through an SMTP relay transport to the sink. */
  relay(message: Outbound<EmailPayload>): Promise<Awaited<ReturnType<ReturnType<typeof smtpRelayTransport>['send']>>>;
  /** The capture transport's stored body for the message. */
  capture(message: Outbound<EmailPayload>): Promise<string>;
}

async function harness(t: TestContext, resolveAttachments: AttachmentResolver = noAttachments): Promise<Harness> {
  const sink = await startSink(t, { starttls: false });
  const { dns, resolver } = await startDns(t);
  const key = dkimFixture();
  publishDkimKey(dns, key);
  const settings = { ...SETTINGS, dkim: key.lookup, resolveAttachments };
  const relay = smtpRelayTransport({ ...settings, url: `smtp://127.0.0.1:${sink.port}` });
  t.after(() => relay.close());
  const captured: Parameters<CaptureSink['put']>[0][] = [];
  const capture = emailCaptureTransport({ ...settings, sink: { put: async (c) => { captured.push(c); } } });
  return {
    sink, resolver,
    relay: (message) => relay.send(message, signal),
    async capture(message) {
      assert.equal((await capture.send(message, signal)).kind, 'accepted');
      return captured.at(-1)?.body ?? '';
    },
  };
}

async function dkimResults(raw: Buffer, resolver: Resolver): Promise<string[][]> {
  const result = await dkimVerify(raw, { resolver: (name, type) => resolver.resolve(name, type) as Promise<string[][]> });
  return result.results.map((r) => [r.status.result, r.signingDomain ?? '', r.status.comment ?? '']);
}

test('a message with bare CRs and LFs in its text and HTML is captured byte for byte as the SMTP peer receives it', async (t) => {
  const h = await harness(t);
  await h.relay(outbound({ payload: BARE_BREAKS }));
  const captured = await h.capture(outbound({ payload: BARE_BREAKS }));
  assert.equal(captured, h.sink.messages[0]?.raw.toString('utf8'));
});

test('the DKIM signature of a relayed message with bare CRs in its bodies verifies at the SMTP peer', async (t) => {
  const h = await harness(t);
  await h.relay(outbound({ payload: BARE_BREAKS }));
  assert.deepStrictEqual(await dkimResults(h.sink.messages[0]?.raw ?? Buffer.alloc(0), h.resolver), [['pass', 'example.com', '']]);
});

test('a captured message with bare CRs, relayed as it was captured, reaches the SMTP peer unchanged and its DKIM signature verifies there', async (t) => {
  const h = await harness(t);
  const captured = Buffer.from(await h.capture(outbound({ payload: BARE_BREAKS })), 'utf8');
  const mailer = nodemailer.createTransport({ host: h.sink.host, port: h.sink.port, secure: false, ignoreTLS: true });
  t.after(() => mailer.close());
  await mailer.sendMail({ envelope: { from: 'b@bounces.example.com', to: ['ana@example.org'] }, raw: captured });
  const received = h.sink.messages[0]?.raw ?? Buffer.alloc(0);
  assert.equal(sha256(received), sha256(captured));
  assert.deepStrictEqual(await dkimResults(received, h.resolver), [['pass', 'example.com', '']]);
});

test('the receipt hash of a certified message with bare CRs is the SHA-256 of the bytes the SMTP peer received', async (t) => {
  const h = await harness(t);
  const outcome = await h.relay(outbound({ payload: { ...BARE_BREAKS, certified: true } }));
  assert.ok(outcome.kind === 'accepted' && outcome.evidence !== undefined, 'the outcome carries evidence');
  assert.equal(outcome.evidence.sha256, sha256(h.sink.messages[0]?.raw ?? Buffer.alloc(0)));
});

test('the certified capture of a message with bare CRs is byte for byte what the SMTP peer receives for it', async (t) => {
  const h = await harness(t);
  const message = outbound({ payload: { ...BARE_BREAKS, certified: true } });
  await h.relay(message);
  assert.equal(await h.capture(message), h.sink.messages[0]?.raw.toString('utf8'));
});

test('a message/rfc822 attachment with bare CRs goes out with CRLF line breaks, captured as sent and signed as sent', async (t) => {
  const forwarded: AttachmentResolver = async () => ({
    ok: true, attachments: [{ filename: 'original.eml', contentType: 'message/rfc822', content: Buffer.from('Subject: old\r\n\r\nline one\rline two\nend') }],
  });
  const h = await harness(t, forwarded);
  await h.relay(outbound());
  const received = h.sink.messages[0]?.raw ?? Buffer.alloc(0);
  assert.ok(received.toString('latin1').includes('\r\n\r\nSubject: old\r\n\r\nline one\r\nline two\r\nend\r\n'));
  assert.equal(await h.capture(outbound()), received.toString('utf8'));
  assert.deepStrictEqual(await dkimResults(received, h.resolver), [['pass', 'example.com', '']]);
});

test('a subject with line breaks is sent on one line, each break a space', async (t) => {
  const h = await harness(t);
  await h.relay(outbound({ payload: { ...PAYLOAD, subject: 'July\rletter\r\nfor\nyou' } }));
  const raw = h.sink.messages[0]?.raw.toString('utf8') ?? '';
  assert.ok(raw.includes('\r\nSubject: July letter for you\r\n'), raw);
});
