import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../app/deps.ts';
import { idempotentSend, purgeExpiredKeysIfDue } from '../../app/idempotent-send.ts';
import { reject, type Result } from '../../domain/result.ts';
import { callerOf, sendingMode } from '../route-access.ts';
import { applicationError } from '../schemas/errors.ts';

// The Idempotency-Key header of the send routes (README "Idempotent sends"): read and
// checked here, the request fingerprinted, a replay written with `Idempotent-Replayed:
// true`; app/idempotent-send.ts decides what a key means.

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
/** 1 to 255 printable ASCII characters (Node has already trimmed the value's outer spaces). */
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;

/** The request was answered here with the key's stored answer. */
export const REPLAYED = Symbol('replayed');

/**
 * Runs `send` for the request: as is without the header; under its key with it. A
 * replay is written here (REPLAYED comes back); everything else, the key's refusals
 * (400, 409, 422) included, comes back as the send's Result for the route to answer.
 */
export async function sendWithIdempotencyKey<D extends AppDeps, T>(
  deps: D,
  request: FastifyRequest,
  reply: FastifyReply,
  send: (deps: D) => Promise<Result<T>>,
): Promise<Result<T> | typeof REPLAYED> {
  const header = request.headers[IDEMPOTENCY_KEY_HEADER];
  if (header === undefined) return send(deps);
  // A repeated header arrives as one value joined by ", " (Node), so an array is not expected; refused all the same.
  if (typeof header !== 'string' || !VALID_KEY.test(header)) return reject('idempotencyKeyInvalid');
  await purgeExpiredKeysIfDue(deps).catch((error: unknown) => request.log.warn({ err: error }, 'expired idempotency keys not purged'));
  const outcome = await idempotentSend(deps, {
    accountId: callerOf(request).account.id, mode: sendingMode(request), key: header, fingerprint: fingerprintOf(request),
  }, send);
  if (outcome.kind === 'answered') return outcome.result;
  await reply.code(outcome.status).header(REPLAYED_HEADER, 'true').type('application/json; charset=utf-8').send(outcome.answer);
  return REPLAYED;
}

/**
 * What makes two requests the same request: method, path (with the campaign's id), query
 * and body, keys in any order. (The sending key's mode picks the key space: app/idempotent-send.ts.)
 */
function fingerprintOf(request: FastifyRequest): string {
  const path = request.url.split('?', 1)[0] ?? '';
  // The query counts when there is one (a batch's `atomic`); without one the fingerprint is as it always was.
  const query = request.query !== null && typeof request.query === 'object' && Object.keys(request.query).length > 0 ? `?${canonicalJson(request.query)}` : '';
  return createHash('sha256').update(`${request.method} ${path}${query}\n`).update(canonicalJson(request.body ?? null)).digest('hex');
}

/** JSON with every object's keys sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are one request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The OpenAPI pieces every keyed route adds: the header and the answers only a key gives. */
export const idempotencyDocs = {
  headers: {
    type: 'object',
    properties: {
      [IDEMPOTENCY_KEY_HEADER]: {
        type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$',
        description: 'Optional. 1–255 printable ASCII characters, unique per send (a UUID): the same key and body within 24 hours answer the '
          + 'first answer again (status, body, msgids) with `Idempotent-Replayed: true`, billing nothing. Scoped to the account. '
          + 'Refusals (4xx) are not remembered. An invalid value: 400 `Invalid request, the Idempotency-Key header must be 1 to 255 printable characters`.',
      },
    },
  },
  /** On the 200: the header a replay carries. */
  replayHeaders: {
    [REPLAYED_HEADER]: { type: 'string', enum: ['true'], description: 'Present on a replay: this is the answer the key\'s first request got; nothing was sent again.' },
  },
  responses: {
    409: { description: '`A request with this idempotency key is being processed`: retry after it is answered', ...applicationError },
    422: { description: '`Idempotency key already used with a different request`', ...applicationError },
  },
} as const;
