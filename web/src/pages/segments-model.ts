// The audience editor's model: lists, excluded lists and a flat set of conditions joined
// by "all" (and) or "any" (or), turned into the filter language of POST /v1/segments/count
// (docs/campaigns.md) and back. A filter the rows cannot show (nested groups, a follow-up's
// own narrowing) is edited as JSON instead, so no filter herald accepts is lost by editing.
// Imported by relative path, not the @herald alias: the model is also type-checked and unit-tested
// with the server's own configuration (test/web/segments-model.test.ts), which has no alias.
import type { Filter, SegmentRequest } from '../../../src/campaigns/segment-filter.ts';

export type Subject = 'email' | 'name' | 'created_at' | 'attribute' | 'opened' | 'clicked' | 'not_opened' | 'delivered_within';
export type Operator = 'eq' | 'neq' | 'contains' | 'in' | 'gt' | 'lt' | 'exists' | 'missing';
export type ValueType = 'text' | 'number' | 'boolean';

export interface Rule {
  readonly key: number;
  readonly subject: Subject;
  readonly attribute: string;
  readonly op: Operator;
  readonly value: string;
  readonly type: ValueType;
  readonly campaign: string;
}

export interface Audience {
  readonly lists: readonly string[];
  readonly exclude: readonly string[];
  readonly join: 'and' | 'or';
  readonly rules: readonly Rule[];
  /** Set when the filter is edited as JSON text. */
  readonly json: string | undefined;
}

export const SUBJECTS: readonly { value: Subject; label: string }[] = [
  { value: 'email', label: 'Email' },
  { value: 'name', label: 'Name' },
  { value: 'attribute', label: 'Attribute' },
  { value: 'created_at', label: 'Added' },
  { value: 'opened', label: 'Opened campaign' },
  { value: 'clicked', label: 'Clicked in campaign' },
  { value: 'not_opened', label: 'Did not open campaign' },
  { value: 'delivered_within', label: 'Received a campaign within' },
];

export const OPERATOR_LABELS: Record<Operator, string> = {
  eq: 'is', neq: 'is not', contains: 'contains', in: 'is one of', gt: 'is greater than', lt: 'is less than', exists: 'is set', missing: 'is not set',
};

/** The operators a subject takes (created_at compares only; email and name are text). */
export function operatorsOf(subject: Subject): readonly Operator[] {
  if (subject === 'created_at') return ['gt', 'lt'];
  if (subject === 'email' || subject === 'name' || subject === 'attribute') return ['eq', 'neq', 'contains', 'in', 'gt', 'lt', 'exists', 'missing'];
  return [];
}

export const isEngagement = (subject: Subject): boolean => subject === 'opened' || subject === 'clicked' || subject === 'not_opened';

let nextKey = 1;
export function newRule(subject: Subject = 'attribute'): Rule {
  return { key: nextKey++, subject, attribute: '', op: subject === 'created_at' ? 'gt' : 'eq', value: '', type: 'text', campaign: '' };
}

export const EMPTY_AUDIENCE: Audience = { lists: [], exclude: [], join: 'and', rules: [], json: undefined };

/** Why an audience cannot be built: `error` in English (tests, logs), `key` and `values` for a page's own words. */
export interface BuildProblem { readonly key: string; readonly values?: Readonly<Record<string, string | number>> }
type Built<T> = { ok: true; value: T } | ({ ok: false; error: string } & BuildProblem);

function typed(rule: Rule, text: string): Built<string | number | boolean> {
  if (rule.subject !== 'attribute' || rule.type === 'text') return { ok: true, value: text };
  if (rule.type === 'boolean') {
    if (text === 'true' || text === 'false') return { ok: true, value: text === 'true' };
    return { ok: false, error: 'write true or false', key: 'trueOrFalse' };
  }
  const number = Number(text);
  if (text.trim() !== '' && Number.isFinite(number)) return { ok: true, value: number };
  return text === '' ? { ok: false, error: 'the value is not a number', key: 'emptyNotNumber' } : { ok: false, error: `“${text}” is not a number`, key: 'notNumber', values: { text } };
}

/** A local `datetime-local` value as ISO, or the text as it is (herald names the bad one). */
function instant(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}

/** One row as a filter node, or what is missing in it. */
export function ruleNode(rule: Rule): Built<Filter> {
  if (isEngagement(rule.subject)) {
    if (rule.campaign === '') return { ok: false, error: 'choose a campaign', key: 'chooseCampaign' };
    return { ok: true, value: { [rule.subject]: rule.campaign } as Filter };
  }
  if (rule.subject === 'delivered_within') {
    const days = Number(rule.value);
    if (!Number.isInteger(days) || days < 1 || days > 3650) return { ok: false, error: 'days must be a whole number from 1 to 3650', key: 'days' };
    return { ok: true, value: { delivered_within: days } };
  }
  const name = rule.attribute.trim();
  if (rule.subject === 'attribute' && name === '') return { ok: false, error: 'name the attribute', key: 'nameAttribute' };
  const field = rule.subject === 'attribute' ? `attributes.${name}` : rule.subject;
  if (rule.op === 'exists' || rule.op === 'missing') return { ok: true, value: { field, exists: rule.op === 'exists' } };
  if (rule.value === '') return { ok: false, error: 'give a value', key: 'giveValue' };
  if (rule.subject === 'created_at') {
    const at = instant(rule.value);
    return { ok: true, value: (rule.op === 'gt' ? { field, gt: at } : { field, lt: at }) };
  }
  if (rule.op === 'in') {
    const values: (string | number | boolean)[] = [];
    for (const part of rule.value.split(',').map((v) => v.trim()).filter((v) => v !== '')) {
      const one = typed(rule, part);
      if (!one.ok) return one;
      values.push(one.value);
    }
    return values.length === 0 ? { ok: false, error: 'give at least one value', key: 'giveValues' } : { ok: true, value: { field, in: values } };
  }
  if (rule.op === 'contains') return { ok: true, value: { field, contains: rule.value } };
  const value = typed(rule, rule.value);
  if (!value.ok) return value;
  if ((rule.op === 'gt' || rule.op === 'lt') && typeof value.value === 'boolean') return { ok: false, error: 'true and false do not compare', key: 'booleanCompare' };
  return { ok: true, value: { field, [rule.op]: value.value } as Filter };
}

/** The filter the rows (or the JSON) make; undefined when there is none. */
export function filterOf(audience: Audience): Built<Filter | undefined> {
  if (audience.json !== undefined) {
    if (audience.json.trim() === '') return { ok: true, value: undefined };
    try {
      return { ok: true, value: JSON.parse(audience.json) as Filter };
    } catch {
      return { ok: false, error: 'The filter is not valid JSON', key: 'invalidJson' };
    }
  }
  const nodes: Filter[] = [];
  for (const [index, rule] of audience.rules.entries()) {
    const node = ruleNode(rule);
    if (!node.ok) return { ...node, error: `Condition ${index + 1}: ${node.error}`, values: { ...node.values, condition: index + 1 } };
    nodes.push(node.value);
  }
  if (nodes.length === 0) return { ok: true, value: undefined };
  if (nodes.length === 1) return { ok: true, value: nodes[0] };
  return { ok: true, value: (audience.join === 'and' ? { and: nodes } : { or: nodes }) as Filter };
}

/** The body of POST /v1/segments/count (and a campaign's audience fields). */
export function segmentRequestOf(audience: Audience): Built<SegmentRequest> {
  if (audience.lists.length === 0) return { ok: false, error: 'Choose at least one list', key: 'chooseList' };
  const filter = filterOf(audience);
  if (!filter.ok) return filter;
  return { ok: true, value: { lists: [...audience.lists], exclude_lists: [...audience.exclude], ...(filter.value === undefined ? {} : { filter: filter.value }) } };
}

const LEAF_OPS = ['eq', 'neq', 'contains', 'in', 'gt', 'lt', 'exists'] as const;

/** A `datetime-local` value for an ISO time, in the browser's zone. */
function localInput(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

function typeOf(value: unknown): ValueType {
  return typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'boolean' : 'text';
}

/** A filter node as a row, when it is one a row can show. */
function ruleOf(node: Record<string, unknown>): Rule | undefined {
  const base = newRule();
  for (const subject of ['opened', 'clicked', 'not_opened'] as const) {
    if (typeof node[subject] === 'string') return { ...base, subject, campaign: node[subject] };
  }
  if (typeof node.delivered_within === 'number') return { ...base, subject: 'delivered_within', value: String(node.delivered_within) };
  const field = node.field;
  if (typeof field !== 'string') return undefined;
  const subject: Subject = field.startsWith('attributes.') ? 'attribute' : (field as Subject);
  const attribute = subject === 'attribute' ? field.slice('attributes.'.length) : '';
  const op = LEAF_OPS.find((o) => o in node);
  if (op === undefined) return undefined;
  const value = node[op];
  if (op === 'exists') return { ...base, subject, attribute, op: value === true ? 'exists' : 'missing' };
  if (op === 'in') {
    const values = Array.isArray(value) ? value : [];
    // A text value holding a comma cannot round-trip through the comma-separated box.
    if (values.some((v) => typeof v === 'string' && v.includes(','))) return undefined;
    return { ...base, subject, attribute, op, value: values.map(String).join(', '), type: typeOf(values[0]) };
  }
  if (subject === 'created_at') return { ...base, subject, op, value: localInput(String(value)) };
  return { ...base, subject, attribute, op, value: String(value), type: typeOf(value) };
}

/** A stored audience as the editor's model: rows when they can show the filter, JSON otherwise. */
export function audienceOf(lists: readonly string[], exclude: readonly string[], filter: Filter | null | undefined): Audience {
  const start = { ...EMPTY_AUDIENCE, lists: [...lists], exclude: [...exclude] };
  if (filter === null || filter === undefined) return start;
  const record = filter as Record<string, unknown>;
  const join = Array.isArray(record.and) ? 'and' : Array.isArray(record.or) ? 'or' : undefined;
  const nodes = join === undefined ? [record] : (record[join] as Record<string, unknown>[]);
  const rules = nodes.map((n) => (typeof n === 'object' && n !== null ? ruleOf(n) : undefined));
  if (rules.every((r): r is Rule => r !== undefined)) return { ...start, join: join ?? 'and', rules };
  return { ...start, json: JSON.stringify(filter, null, 2) };
}
