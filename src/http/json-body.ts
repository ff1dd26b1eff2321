import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { RejectionError } from '../domain/result.ts';

// The application/json parser of every route that takes JSON: UTF-8 only, and bounded
// in nesting and element count before JSON.parse builds anything, so no later
// recursion (JSON.stringify of metadata, a validator) can overflow the stack on a body
// that is small in bytes, and no body of 10 MiB of `[0,0,…]` builds millions of values.

/** Deepest nesting of arrays and objects in a body. */
export const MAX_JSON_DEPTH = 64;
/** Most values in a body: array elements and object members, counted by their separators. */
export const MAX_JSON_ELEMENTS = 100_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/**
 * Why the body is too complex, or undefined. One pass over the bytes: JSON's structural
 * characters are ASCII, and no byte of a multi-byte UTF-8 sequence is below 0x80, so
 * strings are skipped by their quotes alone. Malformed JSON is left to JSON.parse.
 */
export function jsonComplexity(body: Buffer): 'tooDeep' | 'tooManyElements' | undefined {
  let depth = 0;
  let elements = 0;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i];
    if (byte === QUOTE) {
      i = closingQuote(body, i + 1);
      if (i === -1) return undefined;
    } else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
      if (++depth > MAX_JSON_DEPTH) return 'tooDeep';
      if (++elements > MAX_JSON_ELEMENTS) return 'tooManyElements';
    } else if (byte === COMMA) {
      if (++elements > MAX_JSON_ELEMENTS) return 'tooManyElements';
    } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) {
      depth--;
    }
  }
  return undefined;
}

// Bytes read one by one at the start of a string and after an escaped quote, before
// jumping to the next quote with indexOf (memchr): a 10 MB string is skipped in about a
// millisecond instead of a byte loop's 50, and `\"\"…` still costs one call per 64 bytes.
const BYTE_LOOP = 64;

/** The index of the quote that closes a string whose first byte is at `from`, or -1. */
function closingQuote(body: Buffer, from: number): number {
  let i = from;
  for (;;) {
    const stop = Math.min(body.length, i + BYTE_LOOP);
    for (; i < stop; i++) {
      const byte = body[i];
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) return i;
    }
    if (i >= body.length) return -1;
    const quote = body.indexOf(QUOTE, i);
    if (quote === -1) return -1;
    // Escaped when an odd run of backslashes precedes it (the run stops at the opening quote).
    let backslashes = 0;
    while (body[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    i = quote + 1;
  }
}

/** The declared charset, lower-cased and unquoted; undefined when none is declared. */
function declaredCharset(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*("?)([^";\s]*)\1/i.exec(contentType ?? '');
  return match?.[2]?.toLowerCase();
}

type Done = (error: Error | null, body?: unknown) => void;

/** Replaces Fastify's application/json parser on `app` (and the contexts it encloses). */
export function useBoundedJsonParser(app: FastifyInstance): void {
  // Fastify's own parser (secure-json-parse) with the instance's prototype-poisoning options.
  const parse = app.getDefaultJsonParser('remove', 'remove') as (request: FastifyRequest, body: string, done: Done) => void;
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body: Buffer, done: Done) => {
    const charset = declaredCharset(request.headers['content-type']);
    // Decoding another charset as UTF-8 would change the client's text without a word.
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') return done(new RejectionError({ code: 'unsupportedCharset' }));
    if (!isUtf8(body)) return done(new RejectionError({ code: 'invalidUtf8' }));
    const complexity = jsonComplexity(body);
    if (complexity === 'tooDeep') return done(new RejectionError({ code: 'jsonTooDeep' }));
    if (complexity === 'tooManyElements') return done(new RejectionError({ code: 'jsonTooManyElements' }));
    parse(request, body.toString('utf8'), done);
  });
}
