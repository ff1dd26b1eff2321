// A contact's fields as stored (src/campaigns/contact-fields.ts), without the store or HTTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attributesProblem, contactEmail, contactName, csvCellValue, mergeAttributes } from '../../src/campaigns/contact-fields.ts';

test('an address is stored lower-cased, and what is no address is refused', () => {
  assert.deepStrictEqual(
    [contactEmail('Ada@Example.ORG'), contactEmail('not an address'), contactEmail(42), contactEmail(null)],
    ['ada@example.org', null, null, null],
  );
});

test('a name is stored trimmed, and an empty or blank one as none', () => {
  assert.deepStrictEqual([contactName('  Ada Lovelace '), contactName('   '), contactName(null)], ['Ada Lovelace', null, null]);
});

test('attributes must be an object of named values', () => {
  assert.equal(attributesProblem({ plan: 'pro', 'postal code': '01234', seats: 3 }), undefined);
  assert.equal(attributesProblem(['plan']), 'attributes must be an object');
  assert.equal(attributesProblem({ 'plan!': 'pro' }), 'attribute name "plan!" must be 1 to 64 letters, digits, spaces, - or _');
});

test('attributes nest at most three levels deep', () => {
  assert.equal(attributesProblem({ a: { b: { c: 1 } } }), undefined);
  assert.equal(attributesProblem({ a: { b: { c: { d: 1 } } } }), 'attributes may nest at most 3 levels deep');
});

test('attributes larger than 16 KiB as JSON are refused', () => {
  assert.equal(attributesProblem({ notes: 'x'.repeat(16 * 1024) }), 'attributes must be at most 16384 bytes as JSON');
});

test('a merge patch replaces keys, removes those set to null and merges objects key by key', () => {
  const stored = { plan: 'pro', city: 'Lyon', address: { street: 'Rue 1', zip: '69001' } };
  assert.deepStrictEqual(mergeAttributes(stored, { city: null, seats: 3, address: { zip: '69002' } }), {
    plan: 'pro', address: { street: 'Rue 1', zip: '69002' }, seats: 3,
  });
});

test('a CSV cell becomes a number only when it is a plain decimal without leading zeros', () => {
  assert.deepStrictEqual(
    [csvCellValue('42'), csvCellValue('-3.5'), csvCellValue('01234'), csvCellValue('1e3'), csvCellValue('12345678901234567')],
    [42, -3.5, '01234', '1e3', '12345678901234567'],
  );
});
