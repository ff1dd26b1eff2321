import type { FastifyInstance } from 'fastify';
import { keyRequests, type ApiRequestLog } from '../../app/api-request-log.ts';
import { callerOf } from '../route-access.ts';
import { ApiRequestPage, ApiRequestParams, ApiRequestQuery } from '../schemas/api-requests.ts';
import { ErrorBody } from '../schemas/errors.ts';
import type { RouteDeps } from '../route-deps.ts';
import { sendResult } from '../wire-errors.ts';

/**
 * Every answered /v1 request made with an API key goes to the log (a session's requests
 * are the web application's, not a key's). Registered on the /v1 plugin, after
 * authentication has named the caller.
 */
export function recordKeyRequests(app: FastifyInstance, log: ApiRequestLog): void {
  app.addHook('onResponse', async (request, reply) => {
    const principal = request.caller?.principal;
    if (principal?.kind !== 'key' || request.caller === undefined) return;
    log.record({
      accountId: request.caller.account.id, keyId: principal.key.id, method: request.method, url: request.url,
      status: reply.statusCode, durationMs: reply.elapsedTime, requestId: String(request.id),
    });
  });
}

/** GET /v1/api-keys/:keyId/requests: owners and developers (the `account` scope's write level), the account's own keys only. */
export function apiRequestRoutes(app: FastifyInstance, { app: deps, apiRequestLog }: RouteDeps): void {
  app.get<{ Params: ApiRequestParams; Querystring: ApiRequestQuery }>('/v1/api-keys/:keyId/requests', {
    schema: {
      summary: 'The requests one of the account\'s API keys made, newest first (method, path, status, duration, request id), kept 30 days',
      tags: ['account'], params: ApiRequestParams, querystring: ApiRequestQuery,
      response: {
        200: ApiRequestPage,
        400: { description: '`Invalid request, a field has the wrong type or value` with `detail`', ...ErrorBody },
        404: { description: '`Not found`: no key of the account has this id', ...ErrorBody },
      },
    },
    config: { access: { scope: 'account', access: 'write' } },
  }, async (request, reply) => sendResult(reply, await keyRequests(deps, apiRequestLog, callerOf(request).account.id, request.params.keyId, request.query)));
}
