// Segment filters checked node by node (src/campaigns/segment-filter.ts), without the store or HTTP:
// a refusal names the node at fault, in the words the API answers with.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldRef, parseFilter, parseSegmentRequest, segmentOf } from '../../src/campaigns/segment-filter.ts';

const LIST = '01890a5d-ac96-774b-b6a0-000000000001';
const refusal = (detail: string) => ({ ok: false, rejection: { code: 'invalidField', detail } });

test('a filter of nested conditions on columns and attributes is taken as it is', () => {
  const filter = { and: [{ field: 'email', contains: '@example.org' }, { not: { field: 'attributes.plan', in: ['free', 'trial'] } }, { field: 'created_at', gt: '2026-01-01T00:00:00Z' }] };
  assert.deepStrictEqual(parseFilter(filter), { ok: true, value: filter });
});

test('a node without exactly one known operator is refused, naming where it stands', () => {
  assert.deepStrictEqual(
    parseFilter({ or: [{ field: 'email', eq: 'a@example.org' }, { field: 'name', like: 'A%' }] }),
    refusal('filter.or[1] must have exactly one operator of: and, or, not, eq, neq, in, exists, contains, gt, lt, opened, clicked, not_opened, delivered_within'),
  );
});

test('a field that is no column nor an attribute path is refused', () => {
  assert.deepStrictEqual(
    parseFilter({ field: 'phone', eq: '1' }),
    refusal('filter.field must be email, name, created_at or attributes.<name> (at most 3 names of letters, digits, spaces, - or _)'),
  );
});

test('created_at takes only gt or lt, with an ISO-8601 time', () => {
  assert.deepStrictEqual(parseFilter({ field: 'created_at', eq: '2026-01-01' }), refusal('filter: created_at takes gt or lt only'));
  assert.deepStrictEqual(parseFilter({ field: 'created_at', lt: 'yesterday' }), refusal('filter.lt must be an ISO-8601 time'));
});

test('email and name compare with text only', () => {
  assert.deepStrictEqual(parseFilter({ field: 'name', in: ['Ada', 7] }), refusal('filter.in must be text for name'));
});

test('a filter deeper than ten levels is refused before it is walked further', () => {
  let filter: unknown = { field: 'email', exists: true };
  for (let level = 0; level < 10; level += 1) filter = { not: filter };
  assert.deepStrictEqual(parseFilter(filter), refusal('filter is more than 10 levels deep'));
});

test('a field names a contact column, or a path of at most three attribute names', () => {
  assert.deepStrictEqual(
    [fieldRef('name'), fieldRef('attributes.address.city'), fieldRef('attributes.a.b.c.d'), fieldRef('attributes.'), fieldRef('plan')],
    [{ kind: 'column', column: 'name' }, { kind: 'attribute', path: ['address', 'city'] }, undefined, undefined, undefined],
  );
});

test('a segment request needs its lists, and its filter is checked like any other', () => {
  assert.deepStrictEqual(parseSegmentRequest({ lists: [LIST] }), { ok: true, value: { lists: [LIST] } });
  assert.deepStrictEqual(parseSegmentRequest({ lists: [] }), refusal('lists must have 1 to 50 items'));
  assert.deepStrictEqual(parseSegmentRequest({ lists: [LIST], filter: { field: 'email', exists: 'yes' } }), refusal('filter.exists must be true or false'));
});

test('a campaign\'s segment is its lists, its excluded lists and its filter when it has one', () => {
  assert.deepStrictEqual(segmentOf({ lists: [LIST], excludeLists: [], filter: null }), { lists: [LIST], exclude_lists: [] });
  assert.deepStrictEqual(
    segmentOf({ lists: [LIST], excludeLists: [LIST], filter: { field: 'email', exists: true } }),
    { lists: [LIST], exclude_lists: [LIST], filter: { field: 'email', exists: true } },
  );
});
