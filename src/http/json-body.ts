import { errorCodes, type FastifyInstance } from 'fastify';
import { RejectionError } from '../domain/result.ts';
import { parseJsonBody, type JsonParseOutcome } from './json-checks.ts';
import { jsonParsePool, type JsonParsePool } from './json-parse-pool.ts';

// The application/json parser of every route that takes JSON: UTF-8 only, and bounded
// in nesting and element count before JSON.parse builds anything, so no later
// recursion (JSON.stringify of metadata, a validator) can overflow the stack on a body
// that is small in bytes, and no body of 10 MiB of `[0,0,…]` builds millions of values.
// A large body is checked and parsed in a worker thread (json-parse-pool.ts): on the
// event loop a few megabytes hold every other request, /healthz included, for tens of
// milliseconds idle and hundreds on a busy machine.

/**
 * Bodies larger than this are parsed in the pool. Below it the parse takes about a
 * millisecond, less than a round trip to a thread; above it, tens.
 */
export const JSON_WORKER_THRESHOLD_BYTES = 1024 * 1024;

/** The declared charset, lower-cased and unquoted; undefined when none is declared. */
function declaredCharset(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*("?)([^";\s]*)\1/i.exec(contentType ?? '');
  return match?.[2]?.toLowerCase();
}

type Done = (error: Error | null, body?: unknown) => void;

/** The outcome as Fastify's parser callback takes it: the errors are those of Fastify's default parser. */
function answer(outcome: JsonParseOutcome, done: Done): void {
  if ('value' in outcome) done(null, outcome.value);
  else if ('refusal' in outcome) done(new RejectionError({ code: outcome.refusal }));
  else done(outcome.invalid === 'empty' ? new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY() : new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY());
}

/** Replaces Fastify's application/json parser on `app` (and the contexts it encloses); large bodies go to `pool`. */
export function useBoundedJsonParser(app: FastifyInstance, pool: JsonParsePool = jsonParsePool()): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body: Buffer, done: Done) => {
    const charset = declaredCharset(request.headers['content-type']);
    // Decoding another charset as UTF-8 would change the client's text without a word.
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') return done(new RejectionError({ code: 'unsupportedCharset' }));
    if (body.length <= JSON_WORKER_THRESHOLD_BYTES) return answer(parseJsonBody(body), done);
    pool.parse(body).then((outcome) => answer(outcome, done), (error: unknown) => done(error instanceof Error ? error : new Error(String(error))));
  });
  app.addHook('onClose', async () => pool.close());
}
