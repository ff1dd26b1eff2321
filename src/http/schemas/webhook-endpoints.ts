// An account's webhook endpoints (/v1/webhooks/endpoints, docs/webhooks.md): the bodies
// Fastify checks, and the answers. app/webhook-endpoints.ts checks what a schema cannot
// say (a URL's form and where its host resolves).
import { Type, type Static } from '@sinclair/typebox';
import { EVENT_TYPES } from '../../domain/event-catalogue.ts';
import { DESCRIPTION_MAX, MAX_WEBHOOK_ENDPOINTS } from '../../app/webhook-endpoints.ts';
import { TEST_EVENT_TYPE } from '../../app/webhook-deliveries.ts';

const EventType = Type.Union(EVENT_TYPES.map((type) => Type.Literal(type)));
const Url = Type.String({ maxLength: 2048, description: 'http(s); refused when the host resolves to a private or reserved address' });
const Description = Type.Union([Type.String({ maxLength: DESCRIPTION_MAX }), Type.Null()], { description: `Up to ${DESCRIPTION_MAX} characters for people; null: none` });
const EventTypes = Type.Union([Type.Array(EventType, { minItems: 1 }), Type.Null()], { description: 'The types this endpoint wants; absent or null: every public type' });

export const NewWebhookEndpointBody = Type.Object({
  url: Url,
  description: Type.Optional(Description),
  event_types: Type.Optional(EventTypes),
}, { additionalProperties: false });
export type NewWebhookEndpointBody = Static<typeof NewWebhookEndpointBody>;

export const WebhookEndpointChanges = Type.Object({
  url: Type.Optional(Url),
  description: Type.Optional(Description),
  event_types: Type.Optional(EventTypes),
  enabled: Type.Optional(Type.Boolean({ description: 'false: nothing is posted to it (its new events are not queued) until it is true again' })),
}, { additionalProperties: false });
export type WebhookEndpointChanges = Static<typeof WebhookEndpointChanges>;

export const WebhookTestBody = Type.Object({
  type: Type.Union([Type.Literal(TEST_EVENT_TYPE), ...EVENT_TYPES.map((type) => Type.Literal(type))], {
    description: `\`${TEST_EVENT_TYPE}\` or a public event type: the test event's type (its data is the test's own, without msgid)`,
  }),
}, { additionalProperties: false });
export type WebhookTestBody = Static<typeof WebhookTestBody>;

const Time = Type.String({ format: 'date-time' });

export const WebhookEndpoint = Type.Object({
  id: Type.String({ format: 'uuid', description: 'The first endpoint\'s id is the account\'s' }),
  url: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  event_types: Type.Array(EventType, { description: 'The types posted (every public type unless a filter was set)' }),
  event_filter: Type.Union([Type.Array(EventType), Type.Null()], { description: 'The filter as set; null: every type' }),
  secret: Type.String({ description: '`whsec_` + base64 of 32 bytes, this endpoint\'s own, for Standard Webhooks verification' }),
  enabled: Type.Boolean(),
  disabled_at: Type.Union([Time, Type.Null()], { description: 'When it was disabled (PATCH {enabled:false}, or it answered 410 Gone); null while enabled' }),
  disabled_reason: Type.Union([Type.String(), Type.Null()]),
  first: Type.Boolean({ description: 'The endpoint of PUT /v1/webhooks (and of the /v1/webhooks log routes)' }),
  created_at: Type.Union([Time, Type.Null()], { description: 'null for the first endpoint' }),
});

export const WebhookEndpointList = Type.Object({
  data: Type.Array(WebhookEndpoint, { maxItems: MAX_WEBHOOK_ENDPOINTS, description: 'The first endpoint, then the others, oldest first' }),
});
