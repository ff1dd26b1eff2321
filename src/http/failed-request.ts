import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RejectionError } from '../domain/result.ts';
import type { Metrics } from '../metrics/registry.ts';
import { WIRE_TEXTS } from '../domain/wire-texts.ts';
import type { StoreOutage } from '../app/store-outage.ts';
import { sendRejection, withRetryAfter } from './wire-errors.ts';

// What the HTTP layer does with a request that went wrong: every answer carries an
// `x-request-id` a user can quote; an exception that reaches a route is a bug, so it is
// logged at error with its stack and that id, counted, and answered with the route's
// interface text. Expected refusals (bad JSON, too large, a RejectionError) are not bugs,
// and neither is the database not answering: that is a 503 with Retry-After on every
// route (app/store-outage.ts), never the send's 400 or the authentication's 500.

export const REQUEST_ID_HEADER = 'x-request-id';

/** Where an exception that reached a route is counted (herald_unexpected_errors_total{source="request"}). */
export type UnexpectedErrorCounter = Pick<Metrics, 'unexpectedError'>;

// A caller's own id (a proxy's or a client's) is kept when it is short and plain, so
// both sides can quote the same one; anything else could forge or flood log lines.
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Fastify's genReqId: the caller's x-request-id when safe, else a fresh UUID. */
export function requestIdOf(raw: IncomingMessage): string {
  const incoming = raw.headers[REQUEST_ID_HEADER];
  return typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/** The operations whose spec names a text for a send that failed inside the service. */
const SEND_ROUTES = new Set(['/v1/email', '/v1/sms/send', '/v1/whatsapp/sendTemplateMessage', '/v1/whatsapp/sendMessage']);

/** Logs and counts an exception that reached a route (a bug), with the request's id. */
export function reportUnexpected(request: FastifyRequest, counter: UnexpectedErrorCounter, error: unknown, what: string): void {
  counter.unexpectedError('request');
  request.log.error({ err: error, requestId: request.id, method: request.method, route: request.routeOptions.url }, what);
}

/** The root error handler: expected refusals in the interface's shapes, anything else reported. */
export function failedRequestHandler(counter: UnexpectedErrorCounter, outage: StoreOutage) {
  return function answerFailedRequest(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    if (error instanceof RejectionError) return sendRejection(reply, error.rejection);
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendRejection(reply, { code: 'bodyTooLarge' });
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendRejection(reply, { code: 'unsupportedMediaType' });
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return sendRejection(reply, { code: 'invalidRequest1' });
    }
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return sendRejection(reply, { code: 'invalidField', detail: error.message });
    }
    if (outage.noticed(error, request.log)) return sendRejection(withRetryAfter(reply), { code: 'storeUnavailable' });
    reportUnexpected(request, counter, error, 'request failed');
    // The spec's text for a send that failed inside the service.
    if (SEND_ROUTES.has(request.routeOptions.url ?? '')) return sendRejection(reply, { code: 'sendFailed' });
    return reply.code(500).send({ message: WIRE_TEXTS.authInternal });
  };
}

/**
 * Ends an outage in progress when a request of the account or operator API succeeds
 * (they all read the store), as /readyz's own query does; /healthz, which reads nothing,
 * and the other public routes are left out.
 */
export function noteStoreAnswers(app: FastifyInstance, outage: StoreOutage): void {
  app.addHook('onResponse', async (request, reply) => {
    const url = request.routeOptions.url ?? '';
    if (reply.statusCode < 300 && (url.startsWith('/v1/') || url.startsWith('/admin/'))) outage.answered(request.log);
  });
}

/** Puts the request's id on its answer first thing, so every answer carries it, whoever sends it. */
export function addRequestIdHeader(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
}
