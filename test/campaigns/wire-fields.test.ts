// The field schemas the campaign shapes share (src/campaigns/wire-fields.ts), checked as Fastify checks them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Value } from '@sinclair/typebox/value';
import { Id, ListIds, literals, Sender } from '../../src/campaigns/wire-fields.ts';

test('an id is a UUID in either case, and nothing else', () => {
  const id = Id('A list');
  assert.deepStrictEqual(
    ['01890a5d-ac96-774b-b6a0-000000000001', '01890A5D-AC96-774B-B6A0-00000000000F', '01890a5d-ac96-774b-b6a0', 'list-1'].map((v) => Value.Check(id, v)),
    [true, true, false, false],
  );
});

test('a request names at most fifty lists', () => {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => `01890a5d-ac96-774b-b6a0-${String(i).padStart(12, '0')}`);
  assert.deepStrictEqual([Value.Check(ListIds('Lists'), ids(50)), Value.Check(ListIds('Lists'), ids(51))], [true, false]);
});

test('a closed set takes its own texts only', () => {
  const status = literals(['draft', 'running'] as const);
  assert.deepStrictEqual(['draft', 'running', 'Draft', ''].map((v) => Value.Check(status, v)), [true, true, false, false]);
});

test('a sender has an address and a name of one to two hundred characters, and nothing more', () => {
  assert.deepStrictEqual(
    [
      { email: 'news@example.org', name: 'News' },
      { email: 'news@example.org', name: '' },
      { email: 'news@example.org', name: 'N'.repeat(201) },
      { email: 'news@example.org', name: 'News', reply: 'x' },
    ].map((v) => Value.Check(Sender, v)),
    [true, false, false, false],
  );
});
