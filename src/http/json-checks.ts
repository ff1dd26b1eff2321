import { isUtf8 } from 'node:buffer';
import secureJsonParse from 'secure-json-parse';

// The checks and the parse of a JSON body (json-body.ts), each linear in the body, with
// nothing of Fastify's, so a worker thread (json-parse-worker.ts) runs them as they are.

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

/** What a body's checks and parse came to; plain data, so a worker thread can send it. */
export type JsonParseOutcome =
  | { readonly value: unknown }
  | { readonly refusal: 'invalidUtf8' | 'jsonTooDeep' | 'jsonTooManyElements' }
  | { readonly invalid: 'empty' | 'syntax' };

// Fastify's own parser (secure-json-parse) with the options app.ts gives the instance:
// `__proto__` and `constructor.prototype` keys are dropped.
const POISON_OPTIONS = { protoAction: 'remove', constructorAction: 'remove' } as const;

/** The UTF-8 check, the complexity bounds and the parse of one body, each linear in it. */
export function parseJsonBody(body: Uint8Array): JsonParseOutcome {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (!isUtf8(bytes)) return { refusal: 'invalidUtf8' };
  const complexity = jsonComplexity(bytes);
  if (complexity === 'tooDeep') return { refusal: 'jsonTooDeep' };
  if (complexity === 'tooManyElements') return { refusal: 'jsonTooManyElements' };
  const text = bytes.toString('utf8');
  if (text.length === 0) return { invalid: 'empty' };
  try {
    return { value: secureJsonParse.parse(text, undefined, POISON_OPTIONS) };
  } catch {
    return { invalid: 'syntax' };
  }
}

