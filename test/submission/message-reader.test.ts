// Reading a submitted message (src/submission/message-reader.ts): what is kept byte for
// byte, what is removed (Bcc, X-Herald-*), what is added (Date), each recipient's role, and
// herald's own headers as mail libraries write them (nodemailer writes a value with JSON
// punctuation as RFC 2047 encoded words, folded, so the reader decodes them first).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_LIMITS } from '../../src/domain/request-limits.ts';
import { readSubmittedMessage, rfc5322Date } from '../../src/submission/message-reader.ts';

const NOW = Date.parse('2026-11-28T06:40:05.000Z');
const ENVELOPE = { mailFrom: 'news@example.com', rcptTo: ['ana@example.org', 'bea@example.org', 'hidden@example.org'] };

const raw = (headers: string, body = 'Hello,\nthere.\n'): Buffer => Buffer.from(`${headers}\n\n${body}`);

test('Bcc and X-Herald-* headers are removed, a Date is added, and every other byte is kept with CRLF breaks', async () => {
  const read = await readSubmittedMessage(raw('From: News <news@example.com>\nTo: ana@example.org\nBcc: hidden@example.org\nX-Herald-Track: none\nSubject: Hi'), ENVELOPE, DEFAULT_LIMITS, NOW);
  assert.ok(read.ok);
  assert.equal(read.value.mime.toString(), 'Date: Sat, 28 Nov 2026 06:40:05 +0000\r\nFrom: News <news@example.com>\r\nTo: ana@example.org\r\nSubject: Hi\r\n\r\nHello,\r\nthere.\r\n');
});

test('a Date the client wrote is kept as written', async () => {
  const read = await readSubmittedMessage(raw('Date: Fri, 27 Nov 2026 10:00:00 +0100\nFrom: news@example.com\nSubject: Hi'), ENVELOPE, DEFAULT_LIMITS, NOW);
  assert.ok(read.ok);
  assert.equal(read.value.mime.toString(), 'Date: Fri, 27 Nov 2026 10:00:00 +0100\r\nFrom: news@example.com\r\nSubject: Hi\r\n\r\nHello,\r\nthere.\r\n');
});

test('each envelope recipient is to, cc or bcc by the headers that name it', async () => {
  const read = await readSubmittedMessage(raw('From: news@example.com\nTo: Ana <ANA@example.org>\nCc: bea@example.org\nSubject: Hi'), ENVELOPE, DEFAULT_LIMITS, NOW);
  assert.ok(read.ok);
  assert.deepStrictEqual(read.value.recipients, [
    { email: 'ana@example.org', role: 'to' }, { email: 'bea@example.org', role: 'cc' }, { email: 'hidden@example.org', role: 'bcc' },
  ]);
  assert.deepStrictEqual([read.value.to, read.value.cc], [['ANA@example.org'], ['bea@example.org']]);
});

test('the X-Herald headers become the API\'s options', async () => {
  const read = await readSubmittedMessage(raw(
    'From: news@example.com\nSubject: Hi\nX-Herald-Metadata: {"order": 1042}\nX-Herald-Track: opens\nX-Herald-Certified: false\nX-Herald-Idempotency-Key: order-1042',
  ), ENVELOPE, DEFAULT_LIMITS, NOW);
  assert.ok(read.ok);
  assert.deepStrictEqual([read.value.options, read.value.idempotencyKey], [
    { metadata: { order: 1042 }, campaign: null, certified: false, tracking: { opens: true, clicks: false } }, 'order-1042',
  ]);
});

test('an unknown X-Herald-Track word is refused with its detail', async () => {
  const read = await readSubmittedMessage(raw('From: news@example.com\nSubject: Hi\nX-Herald-Track: everything'), ENVELOPE, DEFAULT_LIMITS, NOW);
  assert.deepStrictEqual(read, { ok: false, rejection: { code: 'invalidField', detail: 'X-Herald-Track must be `opens`, `clicks`, `opens, clicks` or `none`' } });
});

test('a message without a From address is refused', async () => {
  const read = await readSubmittedMessage(raw('To: ana@example.org\nSubject: Hi'), ENVELOPE, DEFAULT_LIMITS, NOW);
  assert.deepStrictEqual(read, { ok: false, rejection: { code: 'invalidField', detail: 'the From header must hold one valid address' } });
});

test('a message with no blank line after its headers is refused', async () => {
  const read = await readSubmittedMessage(Buffer.from('From: news@example.com\r\nSubject: Hi\r\n'), ENVELOPE, DEFAULT_LIMITS, NOW);
  assert.deepStrictEqual(read, { ok: false, rejection: { code: 'invalidField', detail: 'the message has no body: a blank line must end its headers' } });
});

test('the UTF-8 subject and display name are read for the views', async () => {
  const read = await readSubmittedMessage(raw('From: =?UTF-8?Q?Jos=C3=A9?= <jose@example.com>\nSubject: =?UTF-8?B?wqFIb2xhIQ==?='), ENVELOPE, DEFAULT_LIMITS, NOW);
  assert.ok(read.ok);
  assert.deepStrictEqual([read.value.from, read.value.subject], [{ email: 'jose@example.com', name: 'José' }, '¡Hola!']);
});

test('the added Date is RFC 5322 in UTC', () => {
  assert.equal(rfc5322Date(Date.parse('2026-01-05T03:04:09Z')), 'Mon, 5 Jan 2026 03:04:09 +0000');
});

/** A plain message with `headers` on top. */
const withHeaders = (...headers: string[]): Buffer =>
  Buffer.from([...headers, 'From: news@example.com', 'To: ana@example.org', 'Subject: Order 42', '', 'Thanks.', ''].join('\r\n'));

test('X-Herald-Metadata written as folded encoded words (nodemailer) is read as the JSON it encodes', async () => {
  // nodemailer 10's bytes for headers: {'X-Herald-Metadata': '{"order":"42","tier":"gold"}'}.
  const raw = withHeaders('X-Herald-Metadata: =?UTF-8?Q?=7B=22order=22=3A=2242=22=2C=22tier=22?=', ' =?UTF-8?Q?=3A=22gold=22=7D?=');
  const read = await readSubmittedMessage(raw, ENVELOPE, DEFAULT_LIMITS, NOW);
  assert.ok(read.ok, JSON.stringify(read));
  assert.deepStrictEqual(read.value.options.metadata, { order: '42', tier: 'gold' });
});

test('X-Herald-Idempotency-Key written as an encoded word is read decoded', async () => {
  const raw = withHeaders('X-Herald-Idempotency-Key: =?UTF-8?B?b3JkZXItNDIgInJldHJ5Ig==?=');
  const read = await readSubmittedMessage(raw, ENVELOPE, DEFAULT_LIMITS, NOW);
  assert.ok(read.ok, JSON.stringify(read));
  assert.equal(read.value.idempotencyKey, 'order-42 "retry"');
});

test('raw UTF-8 in the headers (SMTPUTF8) is read as UTF-8', async () => {
  const read = await readSubmittedMessage(raw('From: José <jose@example.com>\nTo: józsef@example.org\nSubject: ¡Hola!'), { ...ENVELOPE, rcptTo: ['józsef@example.org'] }, DEFAULT_LIMITS, NOW);
  assert.ok(read.ok);
  assert.deepStrictEqual([read.value.from, read.value.subject, read.value.recipients], [
    { email: 'jose@example.com', name: 'José' }, '¡Hola!', [{ email: 'józsef@example.org', role: 'to' }],
  ]);
});
