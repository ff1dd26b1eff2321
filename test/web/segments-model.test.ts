// The audience editor's model (web/src/pages/segments-model.ts): rows of conditions become
// the filter language of POST /v1/segments/count, and a stored filter becomes rows again,
// or JSON text when rows cannot show it. Pure functions: no browser needed. What herald
// does with the filter is tested over HTTP (test/http/segments.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Filter } from '../../src/campaigns/segment-filter.ts';
import { audienceOf, EMPTY_AUDIENCE, filterOf, newRule, segmentRequestOf, type Audience, type Rule } from '../../web/src/pages/segments-model.ts';

const LIST = '01a2b3c4-0000-7000-8000-000000000001';
const OTHER = '01a2b3c4-0000-7000-8000-000000000002';
const CAMPAIGN = '01a2b3c4-0000-7000-8000-0000000000c1';
const rule = (patch: Partial<Rule>): Rule => ({ ...newRule(), ...patch });
const withRules = (rules: Rule[], join: 'and' | 'or' = 'and'): Audience => ({ ...EMPTY_AUDIENCE, lists: [LIST], rules, join });

test('rows become one filter node each, typed as chosen, joined by and or or', () => {
  const rows = [
    rule({ subject: 'attribute', attribute: 'age', op: 'gt', value: '30', type: 'number' }),
    rule({ subject: 'attribute', attribute: 'vip', op: 'eq', value: 'true', type: 'boolean' }),
    rule({ subject: 'attribute', attribute: 'city', op: 'in', value: 'Lima, Quito', type: 'text' }),
    rule({ subject: 'name', op: 'missing' }),
    rule({ subject: 'email', op: 'contains', value: '@example.org' }),
    rule({ subject: 'not_opened', campaign: CAMPAIGN }),
    rule({ subject: 'delivered_within', value: '30' }),
  ];
  assert.deepStrictEqual(filterOf(withRules(rows, 'or')), {
    ok: true,
    value: {
      or: [
        { field: 'attributes.age', gt: 30 },
        { field: 'attributes.vip', eq: true },
        { field: 'attributes.city', in: ['Lima', 'Quito'] },
        { field: 'name', exists: false },
        { field: 'email', contains: '@example.org' },
        { not_opened: CAMPAIGN },
        { delivered_within: 30 },
      ],
    },
  });
});

test('a single row is the filter itself, and no row is no filter', () => {
  assert.deepStrictEqual(segmentRequestOf({ ...withRules([rule({ subject: 'attribute', attribute: 'city', value: 'Lima' })]), exclude: [OTHER] }), {
    ok: true, value: { lists: [LIST], exclude_lists: [OTHER], filter: { field: 'attributes.city', eq: 'Lima' } },
  });
  assert.deepStrictEqual(segmentRequestOf(withRules([])), { ok: true, value: { lists: [LIST], exclude_lists: [] } });
});

test('an incomplete row or an audience without lists says what is missing, naming the condition', () => {
  assert.deepStrictEqual(segmentRequestOf({ ...EMPTY_AUDIENCE }), { ok: false, error: 'Choose at least one list', key: 'chooseList' });
  const cases: [Partial<Rule>, string][] = [
    [{ subject: 'attribute', attribute: ' ', value: 'x' }, 'Condition 2: name the attribute'],
    [{ subject: 'attribute', attribute: 'age', value: 'thirty', type: 'number' }, 'Condition 2: “thirty” is not a number'],
    [{ subject: 'attribute', attribute: 'vip', value: 'yes', type: 'boolean' }, 'Condition 2: write true or false'],
    [{ subject: 'name', op: 'eq', value: '' }, 'Condition 2: give a value'],
    [{ subject: 'opened', campaign: '' }, 'Condition 2: choose a campaign'],
    [{ subject: 'delivered_within', value: '0' }, 'Condition 2: days must be a whole number from 1 to 3650'],
  ];
  for (const [patch, error] of cases) {
    assert.deepStrictEqual(inEnglish(filterOf(withRules([rule({ subject: 'email', op: 'exists' }), rule(patch)]))), { ok: false, error }, JSON.stringify(patch));
  }
});

test('a stored filter that rows can show comes back as rows that make the same filter', () => {
  // The shape POST …/resend stores for a campaign narrowed by one condition: a flat `and`.
  const stored: Filter = { and: [{ field: 'attributes.city', eq: 'Lima' }, { field: 'attributes.age', lt: 40 }, { field: 'attributes.tags', in: ['a', 'b'] }, { not_opened: CAMPAIGN }] };
  const audience = audienceOf([LIST], [OTHER], stored);
  assert.equal(audience.json, undefined);
  assert.deepStrictEqual(audience.rules.map((r) => [r.subject, r.attribute, r.op, r.value, r.type]), [
    ['attribute', 'city', 'eq', 'Lima', 'text'], ['attribute', 'age', 'lt', '40', 'number'], ['attribute', 'tags', 'in', 'a, b', 'text'], ['not_opened', '', 'eq', '', 'text'],
  ]);
  assert.deepStrictEqual(segmentRequestOf(audience), { ok: true, value: { lists: [LIST], exclude_lists: [OTHER], filter: stored } });
});

test('a nested filter is edited as JSON, and comes back unchanged', () => {
  const nested: Filter = { and: [{ or: [{ not_opened: CAMPAIGN }, { opened: CAMPAIGN }] }, { not: { clicked: CAMPAIGN } }] };
  const audience = audienceOf([LIST], [], nested);
  assert.deepStrictEqual(audience.rules, []);
  assert.deepStrictEqual(filterOf(audience), { ok: true, value: nested });
  assert.deepStrictEqual(filterOf({ ...audience, json: '{"and": [' }), { ok: false, error: 'The filter is not valid JSON', key: 'invalidJson' });
});

/** A result with its English words only, as a person reading the tests compares them. */
function inEnglish<T>(built: { ok: true; value: T } | { ok: false; error: string }): { ok: true; value: T } | { ok: false; error: string } {
  return built.ok ? built : { ok: false, error: built.error };
}

test('a problem names its key and values for the page\'s own words, the condition it is in among them', () => {
  assert.deepStrictEqual(filterOf(withRules([rule({ subject: 'attribute', attribute: 'age', op: 'eq', value: 'old', type: 'number' })])), {
    ok: false, error: 'Condition 1: “old” is not a number', key: 'notNumber', values: { text: 'old', condition: 1 },
  });
});
