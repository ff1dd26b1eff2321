import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GSM7_BASIC, GSM7_EXTENSION, isGsm7, septetLength, toGsm7, toGsm7Within } from '../../src/domain/gsm7.ts';

test('the default alphabet has 128 septets with @ at 0, the escape at 0x1B and à at 0x7F', () => {
  assert.equal(GSM7_BASIC.length, 128);
  assert.equal(GSM7_BASIC[0x00], '@');
  assert.equal(GSM7_BASIC[0x1b], '\x1b');
  assert.equal(GSM7_BASIC[0x7f], 'à');
});

test('the extension table holds form feed and ^ { } \\ [ ~ ] | €', () => {
  assert.deepStrictEqual(
    GSM7_EXTENSION.map(([ch]) => ch).join(''),
    '\f^{}\\[~]|€',
  );
});

test('Spanish accents outside GSM are transliterated while ñ and ¿ are kept', () => {
  assert.equal(toGsm7('Canción en español ¿sí?'), 'Cancion en español ¿si?');
});

test('Portuguese, Hungarian and Polish letters lose their marks', () => {
  assert.equal(toGsm7('ação âmbito ê úmido őz Łódź'), 'aÇao ambito e umido oz Lodz');
});

test('lowercase ç becomes the capital Ç that GSM has', () => {
  assert.equal(toGsm7('ça'), 'Ça');
});

test('letters that are in GSM are kept unchanged', () => {
  const inGsm = 'éèùìòÄÖÑÜäöñüàÅåÆæßÉØø£¥¤§¡¿@$_';
  assert.equal(toGsm7(inGsm), inGsm);
});

test('Greek capitals of the GSM alphabet are kept', () => {
  assert.equal(toGsm7('ΔΦΓΛΩΠΨΣΘΞ'), 'ΔΦΓΛΩΠΨΣΘΞ');
});

test('Greek lowercase is sent as capitals, Latin-looking ones as Latin letters', () => {
  assert.equal(toGsm7('λόγος'), 'ΛOΓOΣ');
});

test('curly quotes, guillemets, dashes and the ellipsis become ASCII', () => {
  assert.equal(toGsm7('“a” „b” ‘c’ ‚d’ «e» x – y — z…'), '"a" "b" \'c\' \'d\' "e" x - y - z...');
});

test('non-breaking, thin, ideographic spaces and tabs become plain spaces', () => {
  assert.equal(toGsm7('a\u00a0b\u2009c\u3000d\te'), 'a b c d e');
});

test('emoji are removed, including skin tones and joined sequences', () => {
  assert.equal(toGsm7('Hi 😀 👍🏽 👨‍👩‍👧!'), 'Hi   !');
});

test('CJK characters are removed', () => {
  assert.equal(toGsm7('价格 price'), ' price');
});

test('control characters are removed except newline, carriage return and form feed', () => {
  assert.equal(toGsm7('a\u0000b\u0007c\u001bd\u007fe\n\r\f'), 'abcde\n\r\f');
});

test('a letter typed as base plus combining mark is kept as the GSM letter', () => {
  assert.equal(toGsm7('e\u0301'), 'é');
});

test('extension characters are kept', () => {
  assert.equal(toGsm7('{[~]}|\\^€'), '{[~]}|\\^€');
});

test('cleaning twice gives the same text as cleaning once', () => {
  const once = toGsm7('Ça “va” — 😀 λόγος ação');
  assert.equal(toGsm7(once), once);
});

test('isGsm7 accepts GSM text and rejects an emoji or a lone accented letter outside GSM', () => {
  assert.equal(isGsm7('Hello {world} €5 ΔΣ\n'), true);
  assert.equal(isGsm7('Hi 😀'), false);
  assert.equal(isGsm7('á'), false);
});

test('isGsm7 rejects the bare escape character', () => {
  assert.equal(isGsm7('\x1b'), false);
});

test('septetLength counts basic characters as one septet', () => {
  assert.equal(septetLength('Hello @£'), 8);
});

test('septetLength counts each extension character as two septets', () => {
  assert.equal(septetLength('{}[]~|\\^€\f'), 20);
  assert.equal(septetLength('€5'), 3);
});

test('septetLength throws on a character outside GSM', () => {
  assert.throws(() => septetLength('😀'), RangeError);
});

test('toGsm7Within converts a text of exactly its length', () => {
  assert.equal(toGsm7Within('Canción', 7), 'Cancion');
});

test('toGsm7Within stops with null as soon as the result passes its length', () => {
  assert.equal(toGsm7Within('ab…', 4), null);
});
