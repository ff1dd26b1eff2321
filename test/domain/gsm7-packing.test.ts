import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitSeptets, toSeptets, toSmsParts } from '../../src/domain/gsm7-packing.ts';

test('default-alphabet characters become their septet positions, one per octet', () => {
  assert.deepStrictEqual([...toSeptets('A@£\nä')], [0x41, 0x00, 0x01, 0x0a, 0x7b]);
});

test('an extension character becomes the escape septet followed by its code', () => {
  assert.deepStrictEqual([...toSeptets('€[')], [0x1b, 0x65, 0x1b, 0x3c]);
});

test('a character outside GSM 03.38 is refused', () => {
  assert.throws(() => toSeptets('漢'), { name: 'RangeError', message: 'not a GSM 7-bit character: U+6F22' });
});

test('160 septets travel as one part', () => {
  assert.deepStrictEqual(splitSeptets('a'.repeat(160)).map((chunk) => chunk.length), [160]);
});

test('an extension character counts two septets towards the single-part limit', () => {
  assert.deepStrictEqual(splitSeptets('a'.repeat(158) + '€').map((chunk) => chunk.length), [160]);
  assert.deepStrictEqual(splitSeptets('a'.repeat(159) + '€').map((chunk) => chunk.length), [153, 8]);
});

test('161 septets are split into parts of 153 septets', () => {
  assert.deepStrictEqual(splitSeptets('a'.repeat(161)).map((chunk) => chunk.length), [153, 8]);
  assert.deepStrictEqual(splitSeptets('a'.repeat(307)).map((chunk) => chunk.length), [153, 153, 1]);
});

test('an escape pair at the part boundary moves whole to the next part', () => {
  const chunks = splitSeptets('a'.repeat(152) + '€' + 'b'.repeat(10));
  assert.deepStrictEqual(chunks.map((chunk) => chunk.length), [152, 12]);
  assert.deepStrictEqual([...(chunks[1] ?? []).slice(0, 3)], [0x1b, 0x65, 0x62]);
});

test('a single part has no user data header', () => {
  assert.deepStrictEqual(toSmsParts([Uint8Array.of(0x41)], 7), [{ udh: null, septets: Uint8Array.of(0x41) }]);
});

test('concatenated parts carry the 8-bit reference, the total and their sequence number', () => {
  const parts = toSmsParts([Uint8Array.of(0x41), Uint8Array.of(0x42)], 0xa7);
  assert.deepStrictEqual(parts.map((part) => [...(part.udh ?? [])]), [
    [0x05, 0x00, 0x03, 0xa7, 0x02, 0x01],
    [0x05, 0x00, 0x03, 0xa7, 0x02, 0x02],
  ]);
});

test('more than 255 parts cannot be concatenated', () => {
  const chunks = Array.from({ length: 256 }, () => Uint8Array.of(0x41));
  assert.throws(() => toSmsParts(chunks, 1), { name: 'RangeError', message: '256 parts: a concatenated SMS has at most 255' });
});

test('the concatenation reference must fit in one octet', () => {
  assert.throws(() => toSmsParts([Uint8Array.of(1), Uint8Array.of(2)], 256), { name: 'RangeError', message: 'reference 256 is not an octet' });
});
