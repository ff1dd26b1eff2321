// The JSON import's array cut into element texts, a chunk at a time, with every element
// past its bounds dropped as it is read rather than kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BrokenJsonArray, JsonElementSplitter, MAX_ELEMENT_CHARS } from '../../src/campaigns/import-json-elements.ts';

/** Every element of `chunks` fed one after the other, then the end. */
function split(...chunks: string[]): unknown[] {
  const splitter = new JsonElementSplitter();
  const out = chunks.flatMap((chunk) => splitter.write(chunk));
  splitter.end();
  return out;
}

test('elements are cut at the commas of the top level, whatever the chunks', () => {
  const body = '\uFEFF [ {"email":"a@example.org","attributes":{"t":[1,"x,]}",{"y":null}]}} , 7,"s\\"],", [] ,{} ]  ';
  const expected = [{ text: '{"email":"a@example.org","attributes":{"t":[1,"x,]}",{"y":null}]}} ' }, { text: '7' }, { text: '"s\\"],"' }, { text: '[] ' }, { text: '{} ' }];
  assert.deepStrictEqual(split(body), expected);
  // One character at a time gives the same elements.
  assert.deepStrictEqual(split(...body), expected);
  assert.deepStrictEqual(split('[', ']'), []);
});

test('an element longer than the bound is refused without being kept, and the next one is read', () => {
  const splitter = new JsonElementSplitter();
  const out = [...splitter.write('[{"email":"a@example.org","attributes":{"z":[')];
  // Ten megabytes of zeros, a megabyte at a time.
  const zeros = '0,'.repeat(512 * 1024);
  for (let i = 0; i < 10; i += 1) out.push(...splitter.write(zeros));
  out.push(...splitter.write('0]}}, {"email":"b@example.org"}]'));
  splitter.end();
  assert.deepStrictEqual(out, [{ refused: `the row is longer than ${MAX_ELEMENT_CHARS} characters` }, { text: '{"email":"b@example.org"}' }]);
});

test('a string of megabytes is refused, its commas and brackets not taken for the array\'s', () => {
  assert.deepStrictEqual(split('["', 'a,]'.repeat(100_000), '", 1]'), [{ refused: `the row is longer than ${MAX_ELEMENT_CHARS} characters` }, { text: '1' }]);
});

test('an element nested deeper than 8 levels is refused', () => {
  assert.deepStrictEqual(split(`[${'['.repeat(9)}${']'.repeat(9)}, ${'['.repeat(8)}${']'.repeat(8)}]`), [
    { refused: 'the row nests deeper than 8 levels' }, { text: `${'['.repeat(8)}${']'.repeat(8)}` },
  ]);
});

test('a body whose array breaks is refused, saying how', () => {
  for (const [body, reason] of [
    ['{"email":"a@example.org"}', 'the body is not an array'],
    ['[1,,2]', 'an element is missing before ","'],
    ['[1,]', 'an element is missing before "]"'],
    ['[1] 2', 'there is text after the end of the array'],
    ['[{"a":1}}]', 'an element has a "}" that closes nothing'],
    ['[{"email":"a@example.org"}', 'the array is not closed'],
    ['', 'the body is empty'],
  ] as const) {
    assert.throws(() => split(body), (error: unknown) => error instanceof BrokenJsonArray && error.message === reason, body);
  }
});
