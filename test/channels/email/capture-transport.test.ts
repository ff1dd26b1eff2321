import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emailCaptureTransport } from '../../../src/channels/email/capture-transport.ts';
import type { AttachmentResolver } from '../../../src/channels/email/compose.ts';
import { smtpRelayTransport } from '../../../src/channels/email/smtp-transport.ts';
import type { CaptureSink } from '../../../src/channels/channel.ts';
import { MSGID, SETTINGS, dkimFixture, noAttachments, outbound, startSink } from './fixtures.ts';

const signal = new AbortController().signal;

function memorySink(): CaptureSink & { captures: { messageId: string; contentType: string; body: string }[] } {
  const captures: { messageId: string; contentType: string; body: string }[] = [];
  return { captures, put: async (capture) => { captures.push(capture); } };
}

const withReport: AttachmentResolver = async () => ({
  ok: true, attachments: [{ filename: 'report.pdf', contentType: 'application/pdf', content: Buffer.from('%PDF-1.7 report') }],
});

test('the capture transport stores exactly the bytes an SMTP relay receives for the same message', async (t) => {
  const sink = await startSink(t);
  const key = dkimFixture();
  const settings = { ...SETTINGS, dkim: key.lookup, resolveAttachments: withReport };
  const relay = smtpRelayTransport({ ...settings, url: `smtp://127.0.0.1:${sink.port}`, tls: { rejectUnauthorized: false } });
  t.after(() => relay.close());
  const captured = memorySink();
  const capture = emailCaptureTransport({ ...settings, sink: captured });

  await relay.send(outbound(), signal);
  await capture.send(outbound(), signal);
  assert.equal(captured.captures[0]?.body, sink.messages[0]?.raw.toString());
});

test('a captured email is stored as message/rfc822 under its msgid and accepted by the capture peer', async () => {
  const captured = memorySink();
  const capture = emailCaptureTransport({ ...SETTINGS, resolveAttachments: noAttachments, sink: captured });
  const outcome = await capture.send(outbound(), signal);
  const body = captured.captures[0]?.body ?? '';
  assert.deepStrictEqual(outcome, { kind: 'accepted', peer: 'capture', response: `captured ${Buffer.byteLength(body)} bytes` });
  assert.deepStrictEqual(captured.captures.map((c) => [c.messageId, c.contentType]), [[MSGID, 'message/rfc822']]);
});

test('a capture whose attachment cannot be fetched for good fails without leaving the house and stores nothing', async () => {
  const captured = memorySink();
  const resolveAttachments: AttachmentResolver = async () => ({ ok: false, reason: 'attachment a.pdf: HTTP 404 from https://files.example.com/a.pdf', permanent: true });
  const capture = emailCaptureTransport({ ...SETTINGS, resolveAttachments, sink: captured });
  assert.deepStrictEqual(await capture.send(outbound(), signal), {
    kind: 'failed', peer: 'capture', response: 'attachment a.pdf: HTTP 404 from https://files.example.com/a.pdf', leftTheHouse: false,
  });
  assert.equal(captured.captures.length, 0);
});
