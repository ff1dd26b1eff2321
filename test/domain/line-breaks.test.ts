import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bytesWithCrlfBreaks, isSentUnencoded, withCrlfBreaks, withoutLineBreaks } from '../../src/domain/line-breaks.ts';

test('bare CRs and bare LFs become CRLF and CRLF stays as it is', () => {
  assert.equal(withCrlfBreaks('a\rb\nc\r\nd\n\re\r\r'), 'a\r\nb\r\nc\r\nd\r\n\r\ne\r\n\r\n');
});

test('every line break of a header value becomes one space', () => {
  assert.equal(withoutLineBreaks('July\rletter\r\nfor\n\nyou'), 'July letter for  you');
});

test('bytes get CRLF line breaks and keep every other byte, non-UTF-8 ones included', () => {
  assert.deepStrictEqual(bytesWithCrlfBreaks(Buffer.from([0x61, 0x0d, 0xe9, 0x0a, 0xff])), Buffer.from([0x61, 0x0d, 0x0a, 0xe9, 0x0d, 0x0a, 0xff]));
});

test('message/* attachments are the ones nodemailer sends without a transfer encoding', () => {
  assert.deepStrictEqual(['message/rfc822', 'Message/Global', 'text/plain', 'application/octet-stream'].map(isSentUnencoded), [true, true, false, false]);
});
