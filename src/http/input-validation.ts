import { Kind, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { FastifySchemaCompiler } from 'fastify';
import { RejectionError } from '../domain/result.ts';
import { ACCOUNT_SETTINGS_STYLE, checkBody, checkValue, type DetailStyle } from '../domain/schema-check.ts';
import { checkedByHand } from './interface-checks.ts';

// Fastify's validator compiler for the inputs herald owns: a route whose body or query
// string schema is a TypeBox schema is checked by domain/schema-check.ts before its
// handler runs (a refusal is a RejectionError, answered by failed-request.ts in the one
// error body, `{message, detail}`), and its handler receives the value typed as
// Static<schema>. Plain JSON schemas (path parameters, the interface's sends) and the
// routes interface-checks.ts lists stay documentation: those parse by hand.

const acceptAsIs = (): boolean => true;

/**
 * The routes of /v1 that word their refusals `<field>: <problem>` (ACCOUNT_SETTINGS_STYLE),
 * as their hand parsers always did: their own error formatter, in effect.
 */
const ACCOUNT_SETTINGS_ROUTES: readonly string[] = [
  'PATCH /v1/account', 'POST /v1/api-keys', 'POST /v1/email/templates/render', 'POST /v1/webhooks/deliveries/retry-failed',
  'POST /v1/webhooks/endpoints/:id/deliveries/retry-failed',
];

function isTypeBox(schema: unknown): schema is TSchema {
  return typeof schema === 'object' && schema !== null && Kind in schema;
}

/** The compiler of one API's routes (bodies and query strings), wording failures in its `style`. */
export function inputValidator(apiStyle: DetailStyle): FastifySchemaCompiler<unknown> {
  return ({ schema, httpPart, method, url }) => {
    const style = ACCOUNT_SETTINGS_ROUTES.includes(`${method} ${url}`) ? ACCOUNT_SETTINGS_STYLE : apiStyle;
    if (!isTypeBox(schema) || (httpPart !== 'body' && httpPart !== 'querystring')) return acceptAsIs;
    if (httpPart === 'body' && checkedByHand(method, url)) return acceptAsIs;
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
