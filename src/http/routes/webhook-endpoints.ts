import type { FastifyInstance, FastifyRequest } from 'fastify';
import { listWebhookDeliveries, retryFailedSince, sendTestEvent } from '../../app/webhook-deliveries.ts';
import {
  createEndpoint, deleteEndpoint, getEndpoint, listEndpoints, resolveEndpoint, rotateEndpointSecret, updateEndpoint,
} from '../../app/webhook-endpoints.ts';
import { DeliveryListQuery } from '../../domain/webhook-delivery-query.ts';
import { callerOf } from '../route-access.ts';
import { sendRejection, sendResult } from '../wire-errors.ts';
import { applicationError, authenticationError, rateLimitError } from '../schemas/errors.ts';
import { RetryFailedRequest, RetryFailedResult } from '../schemas/webhooks.ts';
import {
  NewWebhookEndpointBody, WebhookEndpoint, WebhookEndpointChanges, WebhookEndpointList, WebhookTestBody,
} from '../schemas/webhook-endpoints.ts';
import type { RouteDeps } from '../route-deps.ts';

// The account's webhook endpoints (scope `webhooks`), each with its URL, filter, secret,
// enabled state, delivery log and test event. The first endpoint is PUT /v1/webhooks's;
// a delivery of any endpoint is read and retried at /v1/webhooks/deliveries/:id. Reading
// an endpoint shows its secret, so it is write-level access, as GET /v1/webhooks.

const errors = {
  401: { description: 'The key lacks the scope (`API key not authorized.`)', ...applicationError },
  403: { description: 'Authentication failed, or past the cap (`Account quota exceeded`)', ...authenticationError },
  429: { description: 'Request rate above the account\'s limit', ...rateLimitError },
} as const;
const badField = { 400: { description: '`Invalid request, a field has the wrong type or value` with `detail`', ...applicationError } } as const;
const notFound = { 404: { description: 'The account has no such endpoint (`Not found`)', ...applicationError } } as const;

const tags = ['webhooks'];
const params = { type: 'object', required: ['id'], properties: { id: { type: 'string', description: 'Endpoint id (the first endpoint\'s is the account\'s)' } } } as const;
type IdParams = { Params: { id: string } };
const delivery = { type: 'object', description: 'As in GET /v1/webhooks/deliveries', additionalProperties: true } as const;

export function webhookEndpointRoutes(app: FastifyInstance, deps: RouteDeps): void {
  const appDeps = deps.app;
  const urlDeps = { ...appDeps, checkWebhookUrl: deps.checkWebhookUrl };
  const write = { access: { scope: 'webhooks', access: 'write' } } as const;

  /** The caller's endpoint `:id` as the delivery use cases name it (null: the first); undefined when the account has none by that id. */
  const endpointOf = async (request: FastifyRequest<IdParams>): Promise<{ accountId: string; endpointId: string | null } | undefined> => {
    const accountId = callerOf(request).account.id;
    const ref = await resolveEndpoint(appDeps.db, accountId, request.params.id);
    return ref && { accountId, endpointId: ref.kind === 'first' ? null : ref.endpoint.id };
  };

  app.get('/v1/webhooks/endpoints', {
    schema: { summary: 'The account\'s webhook endpoints with their secrets', tags, response: { 200: WebhookEndpointList, ...errors } },
    config: write,
  }, async (request) => listEndpoints(appDeps, callerOf(request).account.id));

  app.post<{ Body: NewWebhookEndpointBody }>('/v1/webhooks/endpoints', {
    schema: {
      summary: 'Add an endpoint (at most 20 an account), with its own signing secret', tags, body: NewWebhookEndpointBody,
      response: { 201: WebhookEndpoint, ...badField, ...errors },
    },
    config: write,
  }, async (request, reply) => sendResult(reply, await createEndpoint(urlDeps, callerOf(request).account.id, request.body), 201));

  app.get<IdParams>('/v1/webhooks/endpoints/:id', {
    schema: { summary: 'An endpoint', tags, params, response: { 200: WebhookEndpoint, ...notFound, ...errors } },
    config: write,
  }, async (request, reply) => sendResult(reply, await getEndpoint(appDeps, callerOf(request).account.id, request.params.id)));

  app.patch<IdParams & { Body: WebhookEndpointChanges }>('/v1/webhooks/endpoints/:id', {
    schema: {
      summary: 'Change an endpoint\'s URL, description or event types, or disable (`enabled: false`) and enable it', tags, params,
      body: WebhookEndpointChanges, response: { 200: WebhookEndpoint, ...badField, ...notFound, ...errors },
    },
    config: write,
  }, async (request, reply) => sendResult(reply, await updateEndpoint(urlDeps, callerOf(request).account.id, request.params.id, request.body)));

  app.delete<IdParams>('/v1/webhooks/endpoints/:id', {
    schema: { summary: 'Remove an endpoint with its delivery log (the first: its URL is cleared, as PUT /v1/webhooks {url: null})', tags, params, response: { 204: { type: 'null' }, ...notFound, ...errors } },
    config: write,
  }, async (request, reply) => {
    const result = await deleteEndpoint(appDeps, callerOf(request).account.id, request.params.id);
    if (!result.ok) return sendRejection(reply, result.rejection);
    return reply.code(204).send();
  });

  app.post<IdParams>('/v1/webhooks/endpoints/:id/secret/rotate', {
    schema: {
      summary: 'A new signing secret for the endpoint; the previous one keeps signing (a second signature) for 24 hours', tags, params,
      response: { 200: { type: 'object', required: ['secret', 'previous_secret_expires_at'], properties: { secret: { type: 'string' }, previous_secret_expires_at: { type: ['string', 'null'], format: 'date-time' } } }, ...notFound, ...errors },
    },
    config: write,
  }, async (request, reply) => sendResult(reply, await rotateEndpointSecret(appDeps, callerOf(request).account.id, request.params.id)));

  app.post<IdParams & { Body: WebhookTestBody }>('/v1/webhooks/endpoints/:id/test', {
    schema: {
      summary: 'Queue a test event of the type asked for to this endpoint, signed and retried like any event', tags, params,
      body: WebhookTestBody, response: { 202: delivery, ...badField, ...notFound, ...errors },
    },
    config: write,
  }, async (request, reply) => {
    const target = await endpointOf(request);
    if (target === undefined) return sendRejection(reply, { code: 'notFound' });
    return sendResult(reply, await sendTestEvent(appDeps, target.accountId, target.endpointId, request.body.type), 202);
  });

  app.get<IdParams & { Querystring: DeliveryListQuery }>('/v1/webhooks/endpoints/:id/deliveries', {
    schema: {
      summary: 'The endpoint\'s delivery log, newest first, with a cursor', tags, params, querystring: DeliveryListQuery,
      response: {
        200: { type: 'object', required: ['data', 'next_cursor'], properties: { data: { type: 'array', items: delivery }, next_cursor: { type: ['string', 'null'] } } },
        ...badField, ...notFound, ...errors,
      },
    },
    config: { access: { scope: 'webhooks', access: 'read' } },
  }, async (request, reply) => {
    const target = await endpointOf(request);
    if (target === undefined) return sendRejection(reply, { code: 'notFound' });
    return sendResult(reply, await listWebhookDeliveries(appDeps, target.accountId, request.query, target.endpointId));
  });

  app.post<IdParams & { Body: RetryFailedRequest }>('/v1/webhooks/endpoints/:id/deliveries/retry-failed', {
    schema: {
      summary: 'One more attempt now for every failed delivery of the endpoint created since a time (up to 10,000 a request)', tags, params,
      body: RetryFailedRequest, response: { 202: RetryFailedResult, ...badField, ...notFound, ...errors },
    },
    config: write,
  }, async (request, reply) => {
    const target = await endpointOf(request);
    if (target === undefined) return sendRejection(reply, { code: 'notFound' });
    return sendResult(reply, await retryFailedSince(appDeps, target.accountId, request.body, target.endpointId), 202);
  });
}
