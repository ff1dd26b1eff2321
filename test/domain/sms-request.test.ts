import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SMS_SEGMENT_LENGTH, parseSmsRequest, segmentCount, splitGsmText, splitSegments } from '../../src/domain/sms-request.ts';
import { DEFAULT_LIMITS } from '../../src/domain/request-limits.ts';
import { WIRE_TEXTS } from '../../src/domain/wire-texts.ts';
import type { Result } from '../../src/domain/result.ts';

const NUMBER = '+5215512345678';

/** The wire text of a rejected result, so each test checks the spec's literal words. */
function rejectionText<T>(result: Result<T>): string {
  assert.equal(result.ok, false);
  return result.ok ? '' : WIRE_TEXTS[result.rejection.code];
}

test('a segment is 160 characters', () => {
  assert.equal(SMS_SEGMENT_LENGTH, 160);
});

test('an empty text has 0 segments', () => {
  assert.equal(segmentCount(''), 0);
});

test('160 characters are 1 segment', () => {
  assert.equal(segmentCount('a'.repeat(160)), 1);
});

test('161 characters are 2 segments', () => {
  assert.equal(segmentCount('a'.repeat(161)), 2);
});

test('320 characters are 2 segments', () => {
  assert.equal(segmentCount('a'.repeat(320)), 2);
});

test('321 characters are 3 segments', () => {
  assert.equal(segmentCount('a'.repeat(321)), 3);
});

test('extension characters count as one character each for billing', () => {
  assert.equal(segmentCount('€'.repeat(160)), 1);
});

test('removed characters do not count: 160 letters plus an emoji are 1 segment', () => {
  assert.equal(segmentCount('a'.repeat(160) + '😀'), 1);
});

test('splitSegments cuts into 160-character chunks', () => {
  assert.deepStrictEqual(splitSegments('a'.repeat(160) + 'b'.repeat(161)), ['a'.repeat(160), 'b'.repeat(160), 'b']);
});

test('splitSegments of an empty text is no segments', () => {
  assert.deepStrictEqual(splitSegments(''), []);
});

test('a valid request gives the cleaned text, its segments and the numbers', () => {
  const result = parseSmsRequest({ message: 'Canción 😀', mobile_numbers: [NUMBER, '+34600111222'] });
  assert.deepStrictEqual(result, {
    ok: true,
    value: { text: 'Cancion ', segments: 1, numbers: [NUMBER, '+34600111222'] },
  });
});

test('duplicate numbers are kept, each is a contact', () => {
  const result = parseSmsRequest({ message: 'hi', mobile_numbers: [NUMBER, NUMBER] });
  assert.deepStrictEqual(result, { ok: true, value: { text: 'hi', segments: 1, numbers: [NUMBER, NUMBER] } });
});

test('a 321-character message is 3 segments', () => {
  const result = parseSmsRequest({ message: 'x'.repeat(321), mobile_numbers: [NUMBER] });
  assert.equal(result.ok && result.value.segments, 3);
});

test('numbers with 10 and with 15 digits are accepted', () => {
  const result = parseSmsRequest({ message: 'hi', mobile_numbers: ['+1234567890', '+123456789012345'] });
  assert.equal(result.ok, true);
});

test('a body that is not an object is err 1', () => {
  for (const body of [null, 'text', 42, [], undefined]) {
    assert.equal(rejectionText(parseSmsRequest(body)), 'Invalid request, missing parameters. err 1');
  }
});

test('missing mobile_numbers is rejected', () => {
  assert.equal(rejectionText(parseSmsRequest({ message: 'hi' })), 'Mobile numbers missing or empty!');
});

test('null, non-array or empty mobile_numbers is rejected', () => {
  for (const mobile_numbers of [null, NUMBER, {}, []]) {
    assert.equal(rejectionText(parseSmsRequest({ message: 'hi', mobile_numbers })), 'Mobile numbers missing or empty!');
  }
});

test('mobile_numbers is checked before message', () => {
  assert.equal(rejectionText(parseSmsRequest({})), 'Mobile numbers missing or empty!');
});

test('missing message is rejected', () => {
  assert.equal(rejectionText(parseSmsRequest({ mobile_numbers: [NUMBER] })), 'Message missing or empty!');
});

test('a non-string, empty or blank message is rejected', () => {
  for (const message of [42, null, '', '   \n ']) {
    assert.equal(rejectionText(parseSmsRequest({ message, mobile_numbers: [NUMBER] })), 'Message missing or empty!');
  }
});

test('a message of only emoji is rejected since nothing is left to send', () => {
  assert.equal(rejectionText(parseSmsRequest({ message: '😀 🎉', mobile_numbers: [NUMBER] })), 'Message missing or empty!');
});

test('message is checked before the numbers structure', () => {
  assert.equal(rejectionText(parseSmsRequest({ message: '', mobile_numbers: ['bad'] })), 'Message missing or empty!');
});

test('every malformed number is listed in request order', () => {
  const result = parseSmsRequest({
    message: 'hi',
    mobile_numbers: ['5512345678', NUMBER, '+123456789', '+1234567890123456', 5215512345678, null, ' +5215512345678'],
  });
  assert.equal(rejectionText(result), 'The mobile number has the wrong structure!');
  assert.deepStrictEqual(!result.ok && result.rejection.offending, [
    { mobile_number: '5512345678' },
    { mobile_number: '+123456789' },
    { mobile_number: '+1234567890123456' },
    { mobile_number: '5215512345678' },
    { mobile_number: 'null' },
    { mobile_number: ' +5215512345678' },
  ]);
});

test('a number with a trailing newline is malformed', () => {
  const result = parseSmsRequest({ message: 'hi', mobile_numbers: [`${NUMBER}\n`] });
  assert.equal(rejectionText(result), 'The mobile number has the wrong structure!');
});

test('a body whose prototype is not Object.prototype is err 1', () => {
  const body = Object.create({ message: 'hi', mobile_numbers: [NUMBER] }) as object;
  assert.equal(rejectionText(parseSmsRequest(body)), 'Invalid request, missing parameters. err 1');
});

test('a field planted on Object.prototype is not read', () => {
  Object.defineProperty(Object.prototype, 'mobile_numbers', { value: [NUMBER], configurable: true });
  try {
    assert.equal(rejectionText(parseSmsRequest({ message: 'hi' })), 'Mobile numbers missing or empty!');
  } finally {
    delete (Object.prototype as Record<string, unknown>)['mobile_numbers'];
  }
});

test('a body with a null prototype is read like a plain object', () => {
  const body = Object.assign(Object.create(null) as object, { message: 'hi', mobile_numbers: [NUMBER] });
  assert.deepStrictEqual(parseSmsRequest(body), { ok: true, value: { text: 'hi', segments: 1, numbers: [NUMBER] } });
});

// The limits (HERALD_MAX_SMS_SEGMENTS, HERALD_MAX_SMS_NUMBERS), with the defaults: 10 and 1,000.

const TOO_LONG = { ok: false, rejection: { code: 'smsTooLong', detail: 'at most 10 messages of 160 characters (1600 characters after GSM conversion)' } };

test('splitGsmText cuts converted text into 160-character chunks without converting it again', () => {
  assert.deepStrictEqual(splitGsmText('a'.repeat(161)), ['a'.repeat(160), 'a']);
});

test('1,001 numbers are refused with tooManyMobileNumbers before any is read', () => {
  const mobile_numbers = Array.from({ length: 1001 }, () => 'not a number');
  assert.deepStrictEqual(parseSmsRequest({ message: 'hi', mobile_numbers }, DEFAULT_LIMITS), { ok: false, rejection: { code: 'tooManyMobileNumbers', detail: 'at most 1000 numbers' } });
});

test('a message of 1,600 GSM characters is 10 messages; 1,601 is smsTooLong', () => {
  const fits = parseSmsRequest({ message: 'a'.repeat(1600), mobile_numbers: [NUMBER] });
  assert.equal(fits.ok && fits.value.segments, 10);
  assert.deepStrictEqual(parseSmsRequest({ message: 'a'.repeat(1601), mobile_numbers: [NUMBER] }), TOO_LONG);
});

test('a message that conversion makes longer than the limit is smsTooLong (… becomes three dots)', () => {
  assert.equal(parseSmsRequest({ message: '…'.repeat(533), mobile_numbers: [NUMBER] }).ok, true);
  assert.deepStrictEqual(parseSmsRequest({ message: '…'.repeat(534), mobile_numbers: [NUMBER] }), TOO_LONG);
});

test('a message that conversion brings under the limit is sent (emoji are removed)', () => {
  const result = parseSmsRequest({ message: `${'😀'.repeat(1500)}hi`, mobile_numbers: [NUMBER] });
  assert.deepStrictEqual(result, { ok: true, value: { text: 'hi', segments: 1, numbers: [NUMBER] } });
});

test('a message of more than twice the limit in code units is smsTooLong before conversion', () => {
  assert.deepStrictEqual(parseSmsRequest({ message: `hi${' '.repeat(3199)}`, mobile_numbers: [NUMBER] }), TOO_LONG);
});

test('a message of 9,000,000 characters is refused in well under a second', () => {
  const message = 'é'.repeat(9_000_000);
  const start = performance.now();
  const result = parseSmsRequest({ message, mobile_numbers: [NUMBER] });
  const ms = performance.now() - start;
  assert.deepStrictEqual(result, TOO_LONG);
  assert.ok(ms < 1000, `${ms} ms`);
});

test('a number entry whose toString cannot be called is echoed, not thrown on', () => {
  assert.deepStrictEqual(parseSmsRequest({ message: 'hi', mobile_numbers: [{ toString: 1 }] }), {
    ok: false, rejection: { code: 'mobileWrongStructure', offending: [{ mobile_number: '[object Object]' }] },
  });
});
