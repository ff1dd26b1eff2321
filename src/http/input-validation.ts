import { Kind, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { FastifySchemaCompiler } from 'fastify';
import { RejectionError } from '../domain/result.ts';
import { checkBody, checkValue, type DetailStyle } from '../domain/schema-check.ts';

// Fastify's validator compiler for the inputs herald owns: a route whose body or query
// string schema is a TypeBox schema is checked by domain/schema-check.ts before its
// handler runs (a refusal is a RejectionError, answered by failed-request.ts), and its
// handler receives the value typed as Static<schema>. Plain JSON schemas (the interface's own routes, path parameters) stay documentation: those
// routes parse by hand, since the wire texts and their order are the contract.

const acceptAsIs = (): boolean => true;

function isTypeBox(schema: unknown): schema is TSchema {
  return typeof schema === 'object' && schema !== null && Kind in schema;
}

/**
 * The compiler of one API's routes, wording failures in its `style`, for the parts
 * named: the operator API's bodies and query strings; the account API's query strings
 * (its campaign bodies are checked by their use cases, with schema-check too, because
 * some of their rules come first in the interface's own words: a contact's missing
 * email is `Email missing or empty!`).
 */
export function inputValidator(style: DetailStyle, parts: readonly ('body' | 'querystring')[]): FastifySchemaCompiler<unknown> {
  return ({ schema, httpPart }) => {
    if (!isTypeBox(schema) || !(parts as readonly (string | undefined)[]).includes(httpPart)) return acceptAsIs;
    if (httpPart === 'body') {
      return (data: unknown) => {
        const checked = checkBody(schema, data, style);
        return checked.ok ? { value: checked.value } : { error: new RejectionError(checked.rejection) };
      };
    }
    return (data: unknown) => {
      // Query strings are text: an empty parameter (`status=`) is absent, numbers and booleans are read
      // as the schema says, defaults filled in.
      const given = Object.entries(data ?? {}).filter(([, value]) => value !== '');
      const query = Value.Default(schema, Value.Convert(schema, Object.fromEntries(given)));
      const checked = checkValue(schema, query, '', style);
      return checked.ok ? { value: checked.value } : { error: new RejectionError(checked.rejection) };
    };
  };
}
