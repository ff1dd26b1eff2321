// herald's own headers as mail libraries write them: nodemailer writes a header value with
// JSON punctuation as RFC 2047 encoded words, folded, so the reader decodes them before it
// reads the option (src/submission/message-reader.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_LIMITS } from '../../src/domain/request-limits.ts';
import { readSubmittedMessage } from '../../src/submission/message-reader.ts';

const ENVELOPE = { mailFrom: 'news@example.com', rcptTo: ['ana@example.org'] };
const NOW = Date.parse('2030-03-04T10:20:30.000Z');

/** A plain message with `headers` on top. */
const message = (...headers: string[]): Buffer =>
  Buffer.from([...headers, 'From: news@example.com', 'To: ana@example.org', 'Subject: Order 42', '', 'Thanks.', ''].join('\r\n'));

test('X-Herald-Metadata written as folded encoded words (nodemailer) is read as the JSON it encodes', async () => {
  // nodemailer 10's bytes for headers: {'X-Herald-Metadata': '{"order":"42","tier":"gold"}'}.
  const raw = message('X-Herald-Metadata: =?UTF-8?Q?=7B=22order=22=3A=2242=22=2C=22tier=22?=', ' =?UTF-8?Q?=3A=22gold=22=7D?=');

  const read = await readSubmittedMessage(raw, ENVELOPE, DEFAULT_LIMITS, NOW);

  assert.ok(read.ok, JSON.stringify(read));
  assert.deepStrictEqual(read.value.options.metadata, { order: '42', tier: 'gold' });
});

test('X-Herald-Idempotency-Key written as an encoded word is read decoded', async () => {
  const raw = message('X-Herald-Idempotency-Key: =?UTF-8?B?b3JkZXItNDIgInJldHJ5Ig==?=');

  const read = await readSubmittedMessage(raw, ENVELOPE, DEFAULT_LIMITS, NOW);

  assert.ok(read.ok, JSON.stringify(read));
  assert.equal(read.value.idempotencyKey, 'order-42 "retry"');
});
