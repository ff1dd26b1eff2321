import type { FastifyInstance } from 'fastify';
import {
  getWebhookDelivery, listWebhookDeliveries, retryFailedSince, retryWebhookDelivery, sendTestEvent, TEST_EVENT_TYPE,
} from '../../app/webhook-deliveries.ts';
import { getWebhookSettings, putWebhookSettings, rotateWebhookSecretOf } from '../../app/webhook-settings.ts';
import { EVENT_TYPES } from '../../domain/event-catalogue.ts';
import { DELIVERY_STATUSES, DeliveryListQuery } from '../../domain/webhook-delivery-query.ts';
import { RetryFailedRequest, RetryFailedResult } from '../schemas/webhooks.ts';
import { callerOf } from '../route-access.ts';
import { sendResult } from '../wire-errors.ts';
import { applicationError, authenticationError, rateLimitError } from '../schemas/errors.ts';
import type { RouteDeps } from '../route-deps.ts';

// The account's webhook (scope `webhooks`): where events go, which types, the signing
// secret and its rotation, the delivery log with every attempt, replay, and a test
// event. Reading the settings shows the secret, so it is write-level access. docs/webhooks.md is the guide. Schemas document the wire only; app/ and
// domain/ validate.

const eventType = { type: 'string', enum: EVENT_TYPES } as const;

const settings = {
  type: 'object', required: ['url', 'secret', 'events', 'disabled_at', 'disabled_reason'],
  properties: {
    url: { type: ['string', 'null'], format: 'uri', description: 'Where events are posted; null: nowhere' },
    secret: { type: ['string', 'null'], description: '`whsec_` + base64 of 32 bytes, for Standard Webhooks verification; made when a URL is first set' },
    events: { type: 'array', items: eventType, description: 'The types posted (every public type unless a filter was set)' },
    disabled_at: {
      type: ['string', 'null'], format: 'date-time',
      description: 'When herald stopped posting because the endpoint answered 410 Gone; null while enabled. PUT the settings again (the same URL will do) to enable it',
    },
    disabled_reason: { type: ['string', 'null'], description: 'Why it was disabled (`the endpoint answered 410 Gone`); null while enabled' },
  },
} as const;

const settingsInput = {
  type: 'object', required: ['url'],
  properties: {
    url: { type: ['string', 'null'], format: 'uri', description: 'http(s); refused when the host resolves to a private or reserved address' },
    events: { type: ['array', 'null'], items: eventType, minItems: 1, description: 'A filter; absent or null: every public type' },
  },
} as const;

const rotated = {
  type: 'object', required: ['secret', 'previous_secret_expires_at'],
  properties: {
    secret: { type: 'string', description: 'The new secret, signing from now on' },
    previous_secret_expires_at: { type: ['string', 'null'], format: 'date-time', description: 'The replaced secret signs too (a second signature) until then: 24 hours' },
  },
} as const;

const deliverySummary = {
  type: 'object',
  required: ['id', 'type', 'msgid', 'status', 'attempt_count', 'next_attempt_at', 'last_status_code', 'last_error', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string', format: 'uuid', description: 'The event id, sent as `webhook-id` on every attempt' },
    type: { type: 'string', description: `A public event type, or \`${TEST_EVENT_TYPE}\`` },
    msgid: { type: ['string', 'null'], description: 'null for test events' },
    status: { type: 'string', enum: DELIVERY_STATUSES, description: '`pending` (due, in flight or waiting for its next slot), `succeeded` (2xx), `failed` (the schedule is spent; retry it by hand)' },
    attempt_count: { type: 'integer' },
    next_attempt_at: { type: ['string', 'null'], format: 'date-time', description: 'pending only' },
    last_status_code: { type: ['integer', 'null'] },
    last_error: { type: ['string', 'null'] },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
} as const;

const deliveryDetails = {
  ...deliverySummary,
  required: [...deliverySummary.required, 'payload', 'attempts'],
  properties: {
    ...deliverySummary.properties,
    payload: { type: 'object', description: 'The body posted: `{type, timestamp, data}`' },
    attempts: {
      type: 'array', description: 'Oldest first',
      items: {
        type: 'object', required: ['at', 'url', 'status_code', 'error', 'duration_ms'],
        properties: {
          at: { type: 'string', format: 'date-time' },
          url: { type: 'string' },
          status_code: { type: ['integer', 'null'], description: 'null when the receiver did not answer' },
          error: { type: ['string', 'null'] },
          duration_ms: { type: 'integer' },
        },
      },
    },
  },
} as const;

const errors = {
  403: { description: 'Authentication failed', ...authenticationError },
  429: { description: 'Request rate above the account\'s limit', ...rateLimitError },
} as const;
const badField = { 400: { description: '`Invalid request, a field has the wrong type or value` with `detail`', ...applicationError } } as const;
const notFound = { 404: { description: 'The account has no such delivery (`Not found`)', ...applicationError } } as const;
const noUrl = { 409: { description: 'The account has no webhook URL (`No webhook URL is set`)', ...applicationError } } as const;

const params = { type: 'object', required: ['id'], properties: { id: { type: 'string', description: 'Delivery (event) id' } } } as const;
type DeliveryParams = { Params: { id: string } };

const tags = ['webhooks'];

export function webhookRoutes(app: FastifyInstance, deps: RouteDeps): void {
  const appDeps = deps.app;

  app.get('/v1/webhooks', {
    schema: { summary: 'The account\'s webhook URL, signing secret and event types', tags, response: { 200: settings, ...errors } },
    config: { access: { scope: 'webhooks', access: 'write' } },
  }, async (request) => getWebhookSettings(appDeps, callerOf(request).account.id));

  app.put('/v1/webhooks', {
    schema: {
      summary: 'Set the webhook URL (null: none) and the event types (absent or null: all); the first URL gets a secret',
      tags, body: settingsInput, response: { 200: settings, ...badField, ...errors },
    },
    config: { access: { scope: 'webhooks', access: 'write' } },
  }, async (request, reply) => sendResult(reply, await putWebhookSettings({ ...appDeps, checkWebhookUrl: deps.checkWebhookUrl }, callerOf(request).account.id, request.body)));

  app.post('/v1/webhooks/secret/rotate', {
    schema: {
      summary: 'A new signing secret; the previous one keeps signing (a second signature) for 24 hours', tags,
      response: { 200: rotated, ...errors },
    },
    config: { access: { scope: 'webhooks', access: 'write' } },
  }, async (request) => rotateWebhookSecretOf(appDeps, callerOf(request).account.id));

  app.get<{ Querystring: DeliveryListQuery }>('/v1/webhooks/deliveries', {
    schema: {
      summary: 'The delivery log, newest first, with a cursor', tags,
      querystring: DeliveryListQuery,
      response: {
        200: { type: 'object', required: ['data', 'next_cursor'], properties: { data: { type: 'array', items: deliverySummary }, next_cursor: { type: ['string', 'null'] } } },
        ...badField, ...errors,
      },
    },
    config: { access: { scope: 'webhooks', access: 'read' } },
  }, async (request, reply) => sendResult(reply, await listWebhookDeliveries(appDeps, callerOf(request).account.id, request.query)));

  app.get<DeliveryParams>('/v1/webhooks/deliveries/:id', {
    schema: { summary: 'A delivery, the body it posts and every attempt', tags, params, response: { 200: deliveryDetails, ...notFound, ...errors } },
    config: { access: { scope: 'webhooks', access: 'read' } },
  }, async (request, reply) => sendResult(reply, await getWebhookDelivery(appDeps, callerOf(request).account.id, request.params.id)));

  app.post<DeliveryParams>('/v1/webhooks/deliveries/:id/retry', {
    schema: {
      summary: 'Post a delivery again now (same webhook-id and body): one more attempt for a failed one, a replay of a succeeded one',
      tags, params, response: { 202: deliverySummary, ...notFound, ...noUrl, ...errors },
    },
    config: { access: { scope: 'webhooks', access: 'write' } },
  }, async (request, reply) => sendResult(reply, await retryWebhookDelivery(appDeps, callerOf(request).account.id, request.params.id), 202));

  app.post<{ Body: RetryFailedRequest }>('/v1/webhooks/deliveries/retry-failed', {
    schema: {
      summary: 'One more attempt now for every failed delivery created since a time (the oldest first, up to 10,000 a request)',
      tags, body: RetryFailedRequest, response: { 202: RetryFailedResult, ...badField, ...noUrl, ...errors },
    },
    config: { access: { scope: 'webhooks', access: 'write' } },
  }, async (request, reply) => sendResult(reply, await retryFailedSince(appDeps, callerOf(request).account.id, request.body), 202));

  app.post('/v1/webhooks/test', {
    schema: {
      summary: `Queue a \`${TEST_EVENT_TYPE}\` event for the webhook URL, signed and retried like any event`, tags,
      response: { 202: deliverySummary, ...noUrl, ...errors },
    },
    config: { access: { scope: 'webhooks', access: 'write' } },
  }, async (request, reply) => sendResult(reply, await sendTestEvent(appDeps, callerOf(request).account.id), 202));
}
