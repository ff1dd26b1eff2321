import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assemble, layOut, parseLayout, pieceHash, piecesNamed } from '../../src/store/mime-layout.ts';

const TO = `To: ${Array.from({ length: 60 }, (_, i) => `reader${i}@example.org`).join(',\r\n ')}\r\n`;
const BODY = `${'A line of the letter, the same in every copy.\r\n'.repeat(30)}`;
const copy = (msgid: string): string =>
  `Message-ID: <${msgid}@herald.example.com>\r\n${TO}Content-Type: multipart/alternative;\r\n boundary="--_b${msgid}"\r\n\r\n`
  + `----_b${msgid}\r\nContent-Type: text/plain\r\n\r\n${BODY}----_b${msgid}--\r\n`;

test('a To header with its folded lines is one piece, kept by its SHA-256', () => {
  const laidOut = layOut(copy('m1'));
  assert.deepStrictEqual([...(laidOut?.pieces.entries() ?? [])].find(([, piece]) => piece.startsWith('To:')), [pieceHash(TO), TO]);
});

test('two copies that differ in their Message-ID and boundaries name the same pieces', () => {
  assert.deepStrictEqual(piecesNamed(layOut(copy('m1'))?.layout ?? []), piecesNamed(layOut(copy('m2'))?.layout ?? []));
  assert.deepStrictEqual(piecesNamed(layOut(copy('m1'))?.layout ?? []), [pieceHash(TO), pieceHash(BODY)]);
});

test('a copy keeps as literal text only what is its own', () => {
  const literal = (layOut(copy('m1'))?.layout ?? []).filter((item) => typeof item === 'string').join('');
  assert.equal(literal, copy('m1').replace(TO, '').replace(BODY, ''));
});

test('a text without a piece of 1,024 characters is not laid out', () => {
  assert.equal(layOut(`Subject: short\r\n\r\n${'x'.repeat(1023)}`), undefined);
});

test('any text put back together from its layout is the text, for 300 random texts of line breaks, dashes, spaces and letters', () => {
  let seed = 7;
  const random = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const alphabet = ['\r\n', '\r', '\n', '--', '-', ' ', '\t', 'a', 'é', 'x'.repeat(700), '\r\n\r\n'];
  let laidOutTexts = 0;
  for (let i = 0; i < 300; i++) {
    const text = Array.from({ length: random(60) }, () => alphabet[random(alphabet.length)]).join('');
    const laidOut = layOut(text);
    if (laidOut === undefined) continue;
    laidOutTexts += 1;
    assert.equal(assemble(parseLayout(JSON.stringify(laidOut.layout)), laidOut.pieces), text);
  }
  // Many of them had a piece to share, so the cut itself was exercised.
  assert.ok(laidOutTexts > 100, `${laidOutTexts} of 300 were laid out`);
});

test('putting a layout back together without one of its pieces throws instead of returning a shorter message', () => {
  const laidOut = layOut(copy('m1'));
  assert.throws(() => assemble(laidOut?.layout ?? [], new Map()), { message: `the stored piece ${pieceHash(TO)} of a message is missing` });
});

test('a stored layout that is not a list of texts and pieces does not parse', () => {
  assert.throws(() => parseLayout('[{"part":"x"}]'), { message: 'a stored message layout does not parse' });
});
