// The rows of a contact import (src/campaigns/import-rows.ts), read from chunks without the
// store or HTTP: each row gives a contact or its error, in order, with its number.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { csvHeader, importRows, type ImportFormat, type ImportRow } from '../../src/campaigns/import-rows.ts';

async function rowsOf(format: ImportFormat, ...chunks: string[]): Promise<ImportRow[]> {
  async function* body(): AsyncGenerator<string> {
    yield* chunks;
  }
  const rows: ImportRow[] = [];
  for await (const batch of importRows(format, body())) rows.push(...batch);
  return rows;
}

test('CSV rows give contacts by the header\'s columns, whatever its case, and every other column is an attribute', async () => {
  assert.deepStrictEqual(await rowsOf('csv', 'EMAIL,Name,plan,seats\nAda@Example.org, Ada ,pro,3\n'), [
    { row: 1, input: { email: 'ada@example.org', name: 'Ada', attributes: { plan: 'pro', seats: 3 } } },
  ]);
});

test('a CSV row with a bad address, no address or the wrong number of fields is an error of that row only', async () => {
  assert.deepStrictEqual(await rowsOf('csv', 'email,name,plan\nnot-an-address,,x\n,,\nb@exam', 'ple.org,B\nc@example.org,,\n'), [
    { row: 1, error: 'The email address has the wrong structure!' },
    { row: 2, error: 'Email missing or empty!' },
    { row: 3, error: 'the row has 2 fields, the header 3' },
    { row: 4, input: { email: 'c@example.org' } },
  ]);
});

test('a CSV without an email column is refused whole', async () => {
  await assert.rejects(rowsOf('csv', 'name,plan\nA,pro\n'), { name: 'MalformedImport', message: 'The CSV header has no email column' });
});

test('a CSV header naming a column twice, or a column that is no attribute name, is refused', () => {
  assert.deepStrictEqual(csvHeader(['email', 'Plan', 'plan']), { ok: false, problem: 'the CSV header names column "plan" twice' });
  assert.deepStrictEqual(csvHeader(['email', 'plan!']), { ok: false, problem: 'CSV column 2 ("plan!") is not an attribute name: use 1 to 64 letters, digits, spaces, - or _' });
  assert.deepStrictEqual(csvHeader(['Name', 'E-mail']), { ok: false, problem: 'no-email' });
});

test('JSON elements give contacts, and an element that is no contact object is an error of that element only', async () => {
  const body = '[{"email":"A@example.org","name":" A ","attributes":{"seats":3}}, 7, {"email":""}, {"email":"b@example.org","phone":"1"}]';
  assert.deepStrictEqual(await rowsOf('json', body), [
    { row: 1, input: { email: 'a@example.org', name: 'A', attributes: { seats: 3 } } },
    { row: 2, error: 'the row must be an object with email' },
    { row: 3, error: 'Email missing or empty!' },
    { row: 4, error: 'phone is not a field of this request' },
  ]);
});
