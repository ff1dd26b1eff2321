// The one CSV line writer of every export: RFC 4180 quoting, and cells a spreadsheet
// would evaluate as a formula written as text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { csvLine, neutralisedCell } from '../../src/domain/csv-line.ts';

test('a text cell starting with =, +, -, @, tab or CR gets a leading single quote', () => {
  assert.deepStrictEqual(
    ['=SUM(A1)', '+1', '-1', '@cmd', '\tx', '\rx'].map(neutralisedCell),
    ["'=SUM(A1)", "'+1", "'-1", "'@cmd", "'\tx", "'\rx"],
  );
});

test('a cell with those characters elsewhere, or empty, is left as it is', () => {
  assert.deepStrictEqual(['a=b', 'x+1', '', "'=already"].map(neutralisedCell), ['a=b', 'x+1', '', "'=already"]);
});

test('numbers are written as numbers, null as an empty cell', () => {
  assert.equal(csvLine([-5, 0, null]), '-5,0,');
});

test('a neutralised cell is still quoted when it holds a comma, quote or line break', () => {
  assert.equal(csvLine(['=HYPERLINK("http://x.example","go")', '\rnext']), `"'=HYPERLINK(""http://x.example"",""go"")","'\rnext"`);
});
