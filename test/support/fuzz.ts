// Random requests from a seed (so a failure can be replayed), and the check that they
// are refused cleanly: never a 5xx, and never an error in the service's log, which is
// where an exception that a route turned into a catch-all 400 shows.
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { Service } from '../../src/service.ts';
import { assertNoErrorLogged, type CapturedLog } from './captured-log.ts';

/** mulberry32: a small seeded PRNG. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(rand: () => number, items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;

/** Field names of every kind of body, and the ones that poison objects or their conversion to text. */
export const KEYS = [
  'to', 'options', 'cc', 'bcc', 'from', 'replyTo', 'subject', 'body', 'template_id', 'variables', 'attachments', 'filename', 'path',
  'email', 'name', 'message', 'mobile_numbers', 'destination', 'templateId', 'params', 'metadata', 'html', 'text', 'scopes', 'domain',
  'ipAllowList', 'services', 'webhookUrl', 'webhookEvents', 'tracking', 'messagesLeft', 'balance', 'expiresAt',
  '__proto__', 'constructor', 'prototype', '', 'toString', 'valueOf',
];

export const STRINGS = [
  '', ' ', 'ana@example.org', 'news@example.com', 'x@other.com', '@', 'a@b', '+5215512345678', '5215512345678', 'data:text/plain;base64,aGk=',
  'data:;base64,', 'https://example.org/a.pdf', 'ftp://x', '{{name}}', '{{#each}}', '{{#if a}}', '{{/if}}', '{{a.b.c}}', '\u0000', '\r\nBcc: evil@example.net',
  'a\rb', '💥'.repeat(50), 'x'.repeat(500), 'null', '[]', '{}', 'Ünïcödé', '\ud800', 'ana\udc00@example.org', '10.0.0.0/8', '::1', '999.1.1.1/99',
  '2030-01-01T00:00:00Z', 'not-a-date', 'email', 'sms', 'whatsapp', 'webhooks', 'message.delivered', 'http://127.0.0.1/', '0.0147', '-1', 'NaN',
];

const NUMBERS = [0, -1, 1.5, 1e308, -0, 2 ** 53 + 1, 160, 161, 1e-7, 0.00001];

export function randomValue(rand: () => number, depth: number): unknown {
  const kind = Math.floor(rand() * (depth > 3 ? 5 : 10));
  switch (kind) {
    case 0: return null;
    case 1: return rand() < 0.5;
    case 2: return pick(rand, NUMBERS);
    case 3: case 4: return pick(rand, STRINGS);
    case 5: return Array.from({ length: Math.floor(rand() * 4) }, () => randomValue(rand, depth + 1));
    // An object whose conversion to text throws: String() on it is a crash.
    case 6: case 7: return { [pick(rand, ['toString', 'valueOf'])]: randomValue(rand, 4) };
    default: {
      const obj: Record<string, unknown> = {};
      for (let i = Math.floor(rand() * 5); i > 0; i--) obj[pick(rand, KEYS)] = randomValue(rand, depth + 1);
      return obj;
    }
  }
}

/**
 * A valid body with one to three changes (a field replaced or removed, or a value deep
 * inside replaced: an array's entry, a nested object's field), or (30 %) a wholly random value.
 */
export function randomBody(rand: () => number, valid: Readonly<Record<string, unknown>>): string {
  if (rand() < 0.3) return JSON.stringify(randomValue(rand, 0)) ?? 'null';
  const body: Record<string, unknown> = structuredClone(valid);
  const keys = [...Object.keys(valid), ...KEYS];
  for (let i = 1 + Math.floor(rand() * 3); i > 0; i--) {
    const roll = rand();
    if (roll < 0.15) delete body[pick(rand, keys)];
    else if (roll < 0.55) replaceInside(rand, body);
    else body[pick(rand, keys)] = randomValue(rand, 1);
  }
  return JSON.stringify(body);
}

/** Replaces one value somewhere below the top level of `container` (if it holds any). */
function replaceInside(rand: () => number, container: Record<string, unknown> | unknown[]): void {
  const keys = Object.keys(container);
  if (keys.length === 0) return;
  const key = pick(rand, keys);
  const child = (container as Record<string, unknown>)[key];
  if (typeof child === 'object' && child !== null && rand() < 0.8) replaceInside(rand, child as Record<string, unknown>);
  else (container as Record<string, unknown>)[key] = randomValue(rand, 2);
}

/** Query values: empty, huge, negative, not numbers, repeated, percent-encodings that are not UTF-8. */
const QUERY_VALUES = [
  '', '0', '-1', '1', '500', '501', '1e3', 'NaN', '9'.repeat(40), 'x'.repeat(3000), 'queued', 'delivered', 'email', 'sms', 'SMS',
  '2030-01-01T00:00:00Z', '2030-13-45', '0190a0a0-0000-7000-8000-000000000000', 'ana@example.org', '%00', '%ED%A0%80', '%FF', '%', '%E2%82',
  '..%2F..%2Fetc', '%0D%0ASet-Cookie:x', 'true', 'html', 'json', '__proto__', 'constructor', '💥',
];

/** A query string of zero to four random parameters, names mostly from `names`. */
export function randomQuery(rand: () => number, names: readonly string[]): string {
  const parts: string[] = [];
  for (let i = Math.floor(rand() * 5); i > 0; i--) {
    const name = rand() < 0.85 ? pick(rand, names) : pick(rand, ['__proto__', 'constructor[prototype]', 'a[b]', '', 'toString', '%ZZ']);
    parts.push(`${name}=${pick(rand, QUERY_VALUES)}`);
  }
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

export interface FuzzRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly url: string;
  /** A JSON text; none for a request without a body. */
  readonly payload?: string;
}

/**
 * Sends each request with `authorization` and fails at the first that gets a 5xx, a
 * status outside `allowed`, or makes the service log an error. Returns the statuses seen.
 */
export async function fuzzRequests(
  service: Service,
  log: CapturedLog,
  authorization: string,
  requests: Iterable<FuzzRequest>,
  allowed: readonly number[],
): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let i = 0;
  for (const request of requests) {
    const before = log.lines.length;
    const res: LightMyRequestResponse = await service.http.inject({
      method: request.method, url: request.url,
      headers: { authorization, ...(request.payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(request.payload === undefined ? {} : { payload: request.payload }),
    });
    const what = `request ${i} ${request.method} ${request.url} ${request.payload ?? ''} → ${res.statusCode} ${res.body.slice(0, 300)}`;
    assertNoErrorLogged(log, what, before);
    assert.ok(res.statusCode < 500, what);
    assert.ok(allowed.includes(res.statusCode), what);
    statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
    i++;
  }
  return statuses;
}

/** `count` random bodies for one route, from a valid one. */
export function* randomBodies(seed: number, count: number, method: FuzzRequest['method'], url: string, valid: Readonly<Record<string, unknown>>): Generator<FuzzRequest> {
  const rand = prng(seed);
  for (let i = 0; i < count; i++) yield { method, url, payload: randomBody(rand, valid) };
}
