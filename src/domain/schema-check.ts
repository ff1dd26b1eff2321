import { FormatRegistry, Kind, type Static, type TSchema } from '@sinclair/typebox';
import { Value, type ValueError } from '@sinclair/typebox/value';
import { isAllowListEntry } from './ip-allow-list.ts';
import { isJsonObject } from './json-object.ts';
import { ok, reject, type Rejection, type Result } from './result.ts';

// The one checker of the inputs herald owns (the interface's own routes keep their hand
// parsers: the wire texts and their order are the contract). Each input is declared
// once as a TypeBox schema: the OpenAPI document shows it, its type derives from it
// (Static<>), and it is checked here — by Fastify before a route's handler runs
// (http/input-validation.ts makes this module its validator compiler), and by the use
// cases for what is not a route input of its own (CSV rows, filter trees, the CLI's flags).
// A failure is `Invalid request, a field has the wrong type or value` with a `detail`
// naming the first offending field in words, in the style of its API:
//   account API (/v1):        "name must be 1 to 200 characters", "optIn is not a field of this request"
//   operator API (/admin/v1): "name: must be 1 to 200 characters", "messages_left: unknown field"
// A body that is not a JSON object gets the account API's `Invalid request, missing
// parameters. err 1`, the operator API's "body: must be a JSON object". A schema may carry
// `errorMessage` (ajv-errors' keyword) to say what its value must be.

// The string formats of herald's own: TypeBox checks a `format` only once it is registered.
FormatRegistry.Set('ip-or-cidr', isAllowListEntry);

/** How a failure is worded: the account API's style or the operator API's. */
export interface DetailStyle {
  /** Between the field's path and the problem. */
  readonly separator: string;
  /** The problem of a field the schema does not know. */
  readonly unknownField: string;
  /** The answer to a body that is not a JSON object. */
  readonly notAnObject: Rejection;
  /** No body at all is `{}` (only defaults wanted), rather than not an object. */
  readonly noBodyIsEmpty: boolean;
  /**
   * A top-level field's `errorMessage` speaks for anything inside it that has none of
   * its own (`scopes: must be a non-empty array of …` for a bad item of `scopes`).
   */
  readonly fieldMessages: boolean;
  /** A missing required field says its `errorMessage` (what it must be) rather than `is required`. */
  readonly requiredSaysWhat: boolean;
  /**
   * The first failure is found as a hand parser would: unknown fields first, then the
   * fields in the schema's order (TypeBox reports every missing field before any wrong one).
   */
  readonly fieldOrder: boolean;
}

export const ACCOUNT_API_STYLE: DetailStyle = {
  separator: ' ', unknownField: 'is not a field of this request', notAnObject: { code: 'invalidRequest1' }, noBodyIsEmpty: false, fieldMessages: false,
  requiredSaysWhat: false, fieldOrder: false,
};

export const OPERATOR_API_STYLE: DetailStyle = {
  separator: ': ', unknownField: 'unknown field', notAnObject: { code: 'invalidField', detail: 'body: must be a JSON object' }, noBodyIsEmpty: true,
  fieldMessages: true, requiredSaysWhat: false, fieldOrder: false,
};

/**
 * The `<field>: <problem>` words of the account API's own settings (its allow-list, its API
 * keys, …), as their hand parsers answered before the routes' schemas checked them: the
 * operator API's words, a missing field saying what it must be, in field order.
 */
export const ACCOUNT_SETTINGS_STYLE: DetailStyle = { ...OPERATOR_API_STYLE, requiredSaysWhat: true, fieldOrder: true };

/** The body (undefined or null: none was sent) as the schema's type, or the rejection to answer with. */
export function checkBody<S extends TSchema>(schema: S, body: unknown, style: DetailStyle = ACCOUNT_API_STYLE): Result<Static<S>> {
  if ((body === undefined || body === null) && style.noBodyIsEmpty) return checkValue(schema, {}, '', style);
  if (!isJsonObject(body)) return { ok: false, rejection: style.notAnObject };
  return checkValue(schema, body, '', style);
}

/** Any value against a schema; `at` names where it sits in the body (e.g. `filter.and[1]`). */
export function checkValue<S extends TSchema>(schema: S, value: unknown, at: string, style: DetailStyle = ACCOUNT_API_STYLE): Result<Static<S>> {
  if (Value.Check(schema, value)) return ok(value as Static<S>);
  return reject('invalidField', { detail: describeFailure(schema, value, at, style) });
}

/** The first reason `value` does not match `schema`, in words. */
export function describeFailure(schema: TSchema, value: unknown, at: string, style: DetailStyle = ACCOUNT_API_STYLE): string {
  const first = style.fieldOrder ? firstInFieldOrder(schema, [...Value.Errors(schema, value)]) : Value.Errors(schema, value).First();
  if (first === undefined) return `${at || 'the body'}${style.separator}is not valid`;
  const field = style.fieldMessages ? fieldMessage(schema, first, style) : undefined;
  return field ?? describe(first, at, style);
}

/** The error of an unknown top-level field if any, else the first error of the earliest field the schema declares. */
function firstInFieldOrder(schema: TSchema, errors: readonly ValueError[]): ValueError | undefined {
  const fields = Object.keys(((schema as Loose)['properties'] as Record<string, unknown> | undefined) ?? {});
  const rank = (error: ValueError): number => {
    const [, field = '', ...inside] = error.path.split('/');
    if (error.message === 'Unexpected property' && inside.length === 0) return -1;
    const at = fields.indexOf(field);
    return at === -1 ? fields.length : at;
  };
  return errors.reduce<ValueError | undefined>((best, error) => (best === undefined || rank(error) < rank(best) ? error : best), undefined);
}

/** `<field><separator><its errorMessage>` for an error inside a top-level field whose own schema says nothing. */
function fieldMessage(schema: TSchema, error: ValueError, style: DetailStyle): string | undefined {
  const [, field, ...inside] = error.path.split('/');
  if (field === undefined || inside.length === 0 || typeof (error.schema as Loose)['errorMessage'] === 'string') return undefined;
  const properties = (schema as Loose)['properties'] as Record<string, Loose> | undefined;
  const message = properties?.[field]?.['errorMessage'];
  return typeof message === 'string' ? `${field}${style.separator}${message}` : undefined;
}

const joinPath = (at: string, pointer: string): string =>
  pointer.split('/').slice(1).reduce((path, part) => (/^[0-9]+$/.test(part) ? `${path}[${part}]` : path === '' ? part : `${path}.${part}`), at);

function describe(error: ValueError, at: string, style: DetailStyle): string {
  const path = joinPath(at, error.path) || 'the body';
  const say = (problem: string): string => `${path}${style.separator}${problem}`;
  const schema = error.schema as Loose;
  if (error.message === 'Unexpected property') return say(style.unknownField);
  if (error.message === 'Expected required property') {
    return say(style.requiredSaysWhat && typeof schema['errorMessage'] === 'string' ? schema['errorMessage'] : 'is required');
  }
  if (typeof schema['errorMessage'] === 'string') return say(schema['errorMessage']);
  const nullable = nullableOf(schema);
  if (nullable !== undefined) {
    // A nullable field with a value that is not null: what is wrong with that value.
    const [inner] = Value.Errors(nullable, error.value);
    if (inner === undefined) return say('has the wrong type or value');
    return inner.path === '' && typeof nullable['errorMessage'] !== 'string' ? say(`${mustBe(nullable, inner)} or null`) : describe(inner, path, style);
  }
  return say(mustBe(schema, error));
}

type Loose = TSchema & Record<string, unknown>;

/** The other variant of `X | null`. */
function nullableOf(schema: Loose): Loose | undefined {
  if (schema[Kind] !== 'Union') return undefined;
  const variants = (schema['anyOf'] as Loose[] | undefined) ?? [];
  const others = variants.filter((v) => v[Kind] !== 'Null');
  return variants.length === 2 && others.length === 1 ? others[0] : undefined;
}

function mustBe(schema: Loose, error: ValueError): string {
  switch (schema[Kind]) {
    case 'Union': {
      const variants = (schema['anyOf'] as Loose[] | undefined) ?? [];
      const literals = variants.filter((v) => v[Kind] === 'Literal').map((v) => String(v['const']));
      return literals.length === variants.length ? `must be one of: ${literals.join(', ')}` : 'has the wrong type or value';
    }
    case 'String': {
      if (typeof error.value !== 'string') return 'must be a string';
      const min = schema['minLength'] as number | undefined;
      const max = schema['maxLength'] as number | undefined;
      if (min !== undefined && max !== undefined) return `must be ${min} to ${max} characters`;
      if (max !== undefined) return `must be at most ${max} characters`;
      if (min !== undefined) return `must be at least ${min} character${min === 1 ? '' : 's'}`;
      return 'has the wrong form';
    }
    case 'Integer':
    case 'Number': {
      const whole = schema[Kind] === 'Integer' ? 'a whole number' : 'a number';
      const min = schema['minimum'] as number | undefined;
      const max = schema['maximum'] as number | undefined;
      return min !== undefined && max !== undefined ? `must be ${whole} from ${min} to ${max}` : `must be ${whole}`;
    }
    case 'Array': {
      if (!Array.isArray(error.value)) return 'must be an array';
      const min = schema['minItems'] as number | undefined;
      const max = schema['maxItems'] as number | undefined;
      if (min !== undefined && max !== undefined) return `must have ${min} to ${max} items`;
      if (max !== undefined) return `must have at most ${max} items`;
      return `must have at least ${min ?? 0} items`;
    }
    case 'Object':
    case 'Record':
      return 'must be an object';
    case 'Boolean':
      return 'must be true or false';
    case 'Literal':
      return `must be ${JSON.stringify(schema['const'])}`;
    default:
      return error.message.charAt(0).toLowerCase() + error.message.slice(1);
  }
}
