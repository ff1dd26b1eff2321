import type { FastifyReply } from 'fastify';
import type { Rejection, Result } from '../domain/result.ts';
import { WIRE_TEXTS, type WireCode } from '../domain/wire-texts.ts';

// Code → status → body shape, in one table. The spec has four body shapes:
// authentication errors `{error}`, application errors `{message}`, validation errors
// `{message, error: [...]}` and the rate-limit body `{success, message, error}`.

type Shape = 'authentication' | 'application' | 'rate-limit';

const STATUS: Partial<Record<WireCode, { status: number; shape: Shape }>> = {
  noApiKey: { status: 403, shape: 'authentication' },
  invalidApiKey: { status: 403, shape: 'authentication' },
  ipNotAllowed: { status: 403, shape: 'authentication' },
  authInternal: { status: 500, shape: 'authentication' },
  rateLimited: { status: 429, shape: 'rate-limit' },
  keyNotAuthorized: { status: 401, shape: 'application' },
  testKeyRefused: { status: 403, shape: 'application' },
  serviceInactive: { status: 401, shape: 'application' },
  noMessagesLeft: { status: 401, shape: 'application' },
  domainNotPermitted: { status: 401, shape: 'application' },
  insufficientBalance: { status: 401, shape: 'application' },
  adminUnauthorized: { status: 401, shape: 'application' },
  notFound: { status: 404, shape: 'application' },
  conflict: { status: 409, shape: 'application' },
  bodyTooLarge: { status: 413, shape: 'application' },
  unsupportedMediaType: { status: 415, shape: 'application' },
  unsupportedCharset: { status: 415, shape: 'application' },
  importMediaType: { status: 415, shape: 'application' },
  quotaExceeded: { status: 403, shape: 'application' },
  readTimedOut: { status: 503, shape: 'application' },
  storeUnavailable: { status: 503, shape: 'application' },
  invalidSignature: { status: 401, shape: 'application' },
  webhookUrlMissing: { status: 409, shape: 'application' },
  allowListLocksOut: { status: 409, shape: 'application' },
  signInFailed: { status: 401, shape: 'application' },
  currentPasswordIncorrect: { status: 400, shape: 'application' },
  totpRequired: { status: 401, shape: 'application' },
  totpIncorrect: { status: 401, shape: 'application' },
  signInThrottled: { status: 429, shape: 'application' },
  attemptsThrottled: { status: 429, shape: 'application' },
  invitationsThrottled: { status: 429, shape: 'application' },
  liveStreamsExceeded: { status: 429, shape: 'application' },
  addressInUse: { status: 409, shape: 'application' },
  sessionExpired: { status: 401, shape: 'application' },
  csrfRefused: { status: 403, shape: 'application' },
  linkInvalid: { status: 404, shape: 'application' },
  userExists: { status: 409, shape: 'application' },
  lastOwner: { status: 409, shape: 'application' },
  totpAlreadyOn: { status: 409, shape: 'application' },
  totpNotStarted: { status: 409, shape: 'application' },
  totpNotOn: { status: 409, shape: 'application' },
  campaignState: { status: 409, shape: 'application' },
  templateInUse: { status: 409, shape: 'application' },
  domainInUse: { status: 409, shape: 'application' },
  messageNotScheduled: { status: 409, shape: 'application' },
  requestTimedOut: { status: 408, shape: 'application' },
  headersTooLarge: { status: 431, shape: 'application' },
  malformedRequest: { status: 400, shape: 'application' },
  idempotencyKeyReused: { status: 422, shape: 'application' },
  idempotencyKeyInFlight: { status: 409, shape: 'application' },
  contentPurged: { status: 410, shape: 'application' },
};

export interface WireError {
  readonly status: number;
  readonly body: Readonly<Record<string, unknown>>;
}

export function wireError(rejection: Rejection): WireError {
  const { status, shape } = STATUS[rejection.code] ?? { status: 400, shape: 'application' as const };
  const text = WIRE_TEXTS[rejection.code];
  switch (shape) {
    case 'authentication':
      return { status, body: { error: text } };
    case 'rate-limit':
      return { status, body: { success: false, message: text, error: 'RATE_LIMIT_EXCEEDED' } };
    case 'application': {
      const body: Record<string, unknown> = { message: text };
      if (rejection.offending) body.error = rejection.offending;
      if (rejection.detail !== undefined) body.detail = rejection.detail;
      if (rejection.status !== undefined) body.status = rejection.status;
      if (rejection.index !== undefined) body.index = rejection.index;
      return { status, body };
    }
  }
}

/** A batch item's refusal (app/send-batch.ts): the single send's error body, with its status. */
export function itemError(rejection: Rejection): { readonly status: number } & Readonly<Record<string, unknown>> {
  const { status, body } = wireError(rejection);
  return { status, ...body };
}

export function sendRejection(reply: FastifyReply, rejection: Rejection): FastifyReply {
  const { status, body } = wireError(rejection);
  return reply.code(status).send(body);
}

/** A use case's Result as the answer: its value with `status`, or its rejection. */
export function sendResult<T>(reply: FastifyReply, result: Result<T>, status = 200): FastifyReply {
  return result.ok ? reply.code(status).send(result.value) : sendRejection(reply, result.rejection);
}

/**
 * How long a client is asked to wait (Retry-After, seconds) when the store did not
 * answer: the database, or Redis with HERALD_REDIS_FAILURE=closed. A restart of either
 * takes a few seconds; a client that retries each second is back within one of its end.
 */
export const STORE_RETRY_AFTER_SECONDS = 1;

/** `reply` with the Retry-After of an outage; the answer is `{ code: 'storeUnavailable' }` (503), the same on every route. */
export function withRetryAfter(reply: FastifyReply): FastifyReply {
  return reply.header('retry-after', String(STORE_RETRY_AFTER_SECONDS));
}

/**
 * An answer given before the request's body is read (authentication, scope, rate):
 * the connection closes after it, so a slow or large body is never drained.
 */
export function refuseBeforeBody(reply: FastifyReply, rejection: Rejection): FastifyReply {
  return sendRejection(reply.header('connection', 'close'), rejection);
}
