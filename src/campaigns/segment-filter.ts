import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { describeFailure, checkValue } from '../domain/schema-check.ts';
import { isJsonObject, type JsonObject } from '../domain/json-object.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import { ATTRIBUTE_KEY, ATTRIBUTES_MAX_DEPTH } from './contact-fields.ts';
import { Id, ListIds, MAX_LISTS_PER_REQUEST } from './wire-fields.ts';

// The segment filter: a small JSON language over a contact's fields, attributes and
// engagement. Each node is an object with one operator:
//
//   {"and": [f, …]}  {"or": [f, …]}  {"not": f}
//   {"field": F, "eq": v}  {"field": F, "neq": v}  {"field": F, "in": [v, …]}
//   {"field": F, "exists": true|false}  {"field": F, "contains": "text"}
//   {"field": F, "gt": v}  {"field": F, "lt": v}
//   {"opened": campaign_id}  {"clicked": campaign_id}  {"not_opened": campaign_id}
//   {"delivered_within": days}
//
// F is `email`, `name`, `created_at` or `attributes.<name>[.<name>[.<name>]]`. The
// meaning of each (types, missing values, case) is in docs/campaigns.md; the SQL is
// in store/segments.ts. A filter has at most MAX_FILTER_NODES nodes, MAX_FILTER_DEPTH deep,
// and MAX_FILTER_CONDITIONS conditions (the nodes that are not and/or/not): each is a
// probe of every contact's row, so they bound what one count costs a contact.

export const MAX_FILTER_NODES = 100;
export const MAX_FILTER_CONDITIONS = 50;
export const MAX_FILTER_DEPTH = 10;
export const MAX_IN_VALUES = 100;
export const MAX_TEXT_VALUE = 1000;
export const MAX_DELIVERED_WITHIN_DAYS = 3650;

const closed = { additionalProperties: false } as const;
const Field = Type.String({ description: '`email`, `name`, `created_at` or `attributes.<name>[.<name>…]` (at most three names)' });
const Scalar = Type.Union([Type.String({ maxLength: MAX_TEXT_VALUE }), Type.Number(), Type.Boolean()], { errorMessage: 'must be a string, a number or true/false' });
const Ordered = Type.Union([Type.String({ maxLength: MAX_TEXT_VALUE }), Type.Number()], { errorMessage: 'must be a number or a string' });
const Campaign = Id('A campaign of the account');
const Children = <T extends TSchema>(child: T) => Type.Array(child, { minItems: 1, maxItems: 20 });

// Each node shape, with its children as `child` (the recursive schema passes itself,
// the parser checks one level at a time and recurses).
const nodeShapes = <T extends TSchema>(child: T) => ({
  and: Type.Object({ and: Children(child) }, closed),
  or: Type.Object({ or: Children(child) }, closed),
  not: Type.Object({ not: child }, closed),
  eq: Type.Object({ field: Field, eq: Scalar }, closed),
  neq: Type.Object({ field: Field, neq: Scalar }, closed),
  in: Type.Object({ field: Field, in: Type.Array(Scalar, { minItems: 1, maxItems: MAX_IN_VALUES }) }, closed),
  exists: Type.Object({ field: Field, exists: Type.Boolean() }, closed),
  contains: Type.Object({ field: Field, contains: Type.String({ minLength: 1, maxLength: 200 }) }, closed),
  gt: Type.Object({ field: Field, gt: Ordered }, closed),
  lt: Type.Object({ field: Field, lt: Ordered }, closed),
  opened: Type.Object({ opened: Campaign }, closed),
  clicked: Type.Object({ clicked: Campaign }, closed),
  not_opened: Type.Object({ not_opened: Campaign }, closed),
  delivered_within: Type.Object({ delivered_within: Type.Integer({ minimum: 1, maximum: MAX_DELIVERED_WITHIN_DAYS, description: 'Days' }) }, closed),
});

const ONE_LEVEL = nodeShapes(Type.Unknown());
export type FilterOperator = keyof typeof ONE_LEVEL;
export const FILTER_OPERATORS = Object.keys(ONE_LEVEL) as FilterOperator[];

export const FilterSchema = Type.Recursive((self) => Type.Union(Object.values(nodeShapes(self))), {
  title: 'SegmentFilter',
  description: 'See docs/campaigns.md: one operator per node; at most 100 nodes, 10 deep, 50 conditions',
});
export type Filter = Static<typeof FilterSchema>;

export const SegmentCountSchema = Type.Object({
  lists: Type.Array(Id('A list of the account'), {
    minItems: 1, maxItems: MAX_LISTS_PER_REQUEST, description: 'Contacts with a confirmed subscription to at least one of these lists',
  }),
  exclude_lists: Type.Optional(ListIds('Minus the contacts on any of these lists, in any status')),
  filter: Type.Optional(FilterSchema),
}, closed);
export type SegmentRequest = Static<typeof SegmentCountSchema>;

// The body checked with the filter left to parseFilter, which names the offending node.
const SegmentBodyShape = Type.Object({ ...SegmentCountSchema.properties, filter: Type.Optional(Type.Unknown()) }, closed);

export const SegmentCountAnswerSchema = Type.Object({ contacts: Type.Integer({ description: 'Contacts in the segment now' }) });

/** The contact fields a filter may name, besides `attributes.…`. */
export const CONTACT_FIELDS = ['email', 'name', 'created_at'] as const;
export type ContactField = (typeof CONTACT_FIELDS)[number];

/** A field a filter names: a contact column, or a path of attribute names. */
export type FieldRef = { readonly kind: 'column'; readonly column: ContactField } | { readonly kind: 'attribute'; readonly path: readonly string[] };

export function fieldRef(field: string): FieldRef | undefined {
  if ((CONTACT_FIELDS as readonly string[]).includes(field)) return { kind: 'column', column: field as ContactField };
  if (!field.startsWith('attributes.')) return undefined;
  const path = field.slice('attributes.'.length).split('.');
  return path.length <= ATTRIBUTES_MAX_DEPTH && path.every((name) => ATTRIBUTE_KEY.test(name)) ? { kind: 'attribute', path } : undefined;
}

const invalid = (detail: string) => reject('invalidField', { detail });

/** A whole segment request body: lists, exclude_lists and the filter, checked. */
export function parseSegmentRequest(body: unknown): Result<SegmentRequest> {
  const checked = checkValue(SegmentBodyShape, body, '');
  if (!checked.ok) return isJsonObject(body) ? checked : reject('invalidRequest1');
  const { filter, ...rest } = checked.value;
  if (filter === undefined) return ok(rest);
  const parsed = parseFilter(filter);
  return parsed.ok ? ok({ ...rest, filter: parsed.value }) : parsed;
}

/** A filter, checked node by node; the rejection's detail names the node (`filter.and[1].gt`). */
export function parseFilter(value: unknown, at = 'filter'): Result<Filter> {
  const budget = { nodes: 0 };
  const problem = checkNode(value, at, 1, budget);
  if (problem !== undefined) return invalid(problem);
  const filter = value as Filter;
  return conditions(filter) > MAX_FILTER_CONDITIONS ? invalid(`filter has more than ${MAX_FILTER_CONDITIONS} conditions`) : ok(filter);
}

/** The filter's conditions: its nodes other than and, or and not. */
function conditions(filter: Filter): number {
  if ('and' in filter) return filter.and.reduce((n, f) => n + conditions(f), 0);
  if ('or' in filter) return filter.or.reduce((n, f) => n + conditions(f), 0);
  if ('not' in filter) return conditions(filter.not);
  return 1;
}

function checkNode(value: unknown, at: string, depth: number, budget: { nodes: number }): string | undefined {
  budget.nodes += 1;
  if (budget.nodes > MAX_FILTER_NODES) return `filter has more than ${MAX_FILTER_NODES} nodes`;
  if (depth > MAX_FILTER_DEPTH) return `filter is more than ${MAX_FILTER_DEPTH} levels deep`;
  if (!isJsonObject(value)) return `${at} must be an object with one operator`;
  const node: JsonObject = value;
  const operators = Object.keys(node).filter((key) => key !== 'field');
  const [operator] = operators;
  if (operators.length !== 1 || operator === undefined || !Object.hasOwn(ONE_LEVEL, operator)) {
    return `${at} must have exactly one operator of: ${FILTER_OPERATORS.join(', ')}`;
  }
  const shape = ONE_LEVEL[operator as FilterOperator];
  const probe: unknown = node; // Check narrows its argument; node stays a plain object
  if (!Value.Check(shape, probe)) return describeFailure(shape, node, at);
  if (operator === 'and' || operator === 'or') {
    const children = node[operator] as unknown[];
    for (const [i, child] of children.entries()) {
      const problem = checkNode(child, `${at}.${operator}[${i}]`, depth + 1, budget);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (operator === 'not') return checkNode(node['not'], `${at}.not`, depth + 1, budget);
  if (!Object.hasOwn(node, 'field')) return undefined;
  return checkFieldUse(String(node['field']), operator as FilterOperator, node[operator], at);
}

/** Which operators and values each kind of field takes. */
function checkFieldUse(field: string, operator: FilterOperator, operand: unknown, at: string): string | undefined {
  const ref = fieldRef(field);
  if (ref === undefined) return `${at}.field must be email, name, created_at or attributes.<name> (at most ${ATTRIBUTES_MAX_DEPTH} names of letters, digits, spaces, - or _)`;
  if (ref.kind === 'attribute') return undefined;
  if (ref.column === 'created_at') {
    if (operator !== 'gt' && operator !== 'lt') return `${at}: created_at takes gt or lt only`;
    return typeof operand === 'string' && Number.isFinite(Date.parse(operand)) ? undefined : `${at}.${operator} must be an ISO-8601 time`;
  }
  const values = operator === 'in' ? (operand as unknown[]) : [operand];
  if (operator !== 'exists' && values.some((v) => typeof v !== 'string')) return `${at}.${operator} must be text for ${ref.column}`;
  return undefined;
}

/** A campaign's segment: what the runner walks and the quote counts. */
export const segmentOf = (c: { readonly lists: readonly string[]; readonly excludeLists: readonly string[]; readonly filter: Filter | null }): SegmentRequest => ({
  lists: [...c.lists], exclude_lists: [...c.excludeLists], ...(c.filter === null ? {} : { filter: c.filter }),
});
