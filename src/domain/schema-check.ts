import { Kind, type Static, type TSchema } from '@sinclair/typebox';
import { Value, type ValueError } from '@sinclair/typebox/value';
import { isJsonObject } from './json-object.ts';
import { ok, reject, type Result } from './result.ts';

// herald's own request bodies are declared once as TypeBox schemas (the OpenAPI
// document shows them, the types derive from them) and checked here. A body that is
// not a JSON object gets the interface's `Invalid request, missing parameters. err 1`;
// anything else the schema refuses gets `Invalid request, a field has the wrong type
// or value` with a `detail` naming the first offending field in words:
//   "name must be 1 to 200 characters", "optin must be one of: single, double",
//   "lists[2] must be an id", "optIn is not a field of this request".
// A schema may carry `errorMessage` (ajv-errors' keyword) to say what its value must be.

/** The body as the schema's type, or the rejection to answer with. */
export function checkBody<S extends TSchema>(schema: S, body: unknown): Result<Static<S>> {
  if (!isJsonObject(body)) return reject('invalidRequest1');
  return checkValue(schema, body, '');
}

/** Any value against a schema; `at` names where it sits in the body (e.g. `filter.and[1]`). */
export function checkValue<S extends TSchema>(schema: S, value: unknown, at: string): Result<Static<S>> {
  if (Value.Check(schema, value)) return ok(value as Static<S>);
  return reject('invalidField', { detail: describeFailure(schema, value, at) });
}

/** The first reason `value` does not match `schema`, in words. */
export function describeFailure(schema: TSchema, value: unknown, at: string): string {
  const [first] = Value.Errors(schema, value);
  return first === undefined ? `${at || 'the body'} is not valid` : describe(first, at);
}

const joinPath = (at: string, pointer: string): string =>
  pointer.split('/').slice(1).reduce((path, part) => (/^[0-9]+$/.test(part) ? `${path}[${part}]` : path === '' ? part : `${path}.${part}`), at);

function describe(error: ValueError, at: string): string {
  const path = joinPath(at, error.path) || 'the body';
  const schema = error.schema as Loose;
  if (error.message === 'Unexpected property') return `${path} is not a field of this request`;
  if (error.message === 'Expected required property') return `${path} is required`;
  if (typeof schema['errorMessage'] === 'string') return `${path} ${schema['errorMessage']}`;
  const nullable = nullableOf(schema);
  if (nullable !== undefined) {
    // A nullable field with a value that is not null: what is wrong with that value.
    const [inner] = Value.Errors(nullable, error.value);
    if (inner === undefined) return `${path} has the wrong type or value`;
    return inner.path === '' && typeof nullable['errorMessage'] !== 'string' ? `${path} ${mustBe(nullable, inner)} or null` : describe(inner, path);
  }
  return `${path} ${mustBe(schema, error)}`;
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
