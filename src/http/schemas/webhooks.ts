// The webhook log's retries (/v1/webhooks) and the events herald posts to an account's
// webhook URL (the OpenAPI document's `webhooks` section).
import { Type, type Static } from '@sinclair/typebox';
import { EVENT_DESCRIPTIONS, EVENT_TYPES, type EventType } from '../../domain/event-catalogue.ts';
// The OpenAPI types @fastify/swagger itself is typed with.
import type { OpenAPIV3_1 } from 'openapi-types';
import { attemptFields } from './messages.ts';
import { TIME_BOUND_PROBLEM } from '../../domain/account-input.ts';
import { ISO_TIME } from '../../domain/admin-input.ts';

/** Checked by Fastify, worded `<field>: <problem>` as it always was (input-validation.ts). */
export const RetryFailedRequest = Type.Object({
  since: Type.Union([
    Type.String({ pattern: `^(?:[0-9]{1,15}|${ISO_TIME.source.slice(1, -1)})$` }),
    Type.Integer({ minimum: 0, maximum: 999_999_999_999_999 }),
  ], { errorMessage: TIME_BOUND_PROBLEM, description: 'Failed deliveries created at or after: ISO-8601 time or epoch milliseconds' }),
}, { additionalProperties: false });
export type RetryFailedRequest = Static<typeof RetryFailedRequest>;

export const RetryFailedResult = Type.Object({
  retried: Type.Integer({ minimum: 0, description: 'Deliveries put back to `pending`, due now (at most 10,000 a request; ask again for more)' }),
});
export type RetryFailedResult = Static<typeof RetryFailedResult>;

const eventPayloadSchema = (type: EventType) => ({
  type: 'object', required: ['type', 'timestamp', 'data'],
  properties: {
    type: { type: 'string', const: type },
    timestamp: { type: 'string', format: 'date-time', description: 'When it happened' },
    data: {
      type: 'object', required: ['msgid', 'account', 'channel', 'recipient', 'family'],
      properties: {
        msgid: { type: 'string', format: 'uuid' },
        account: { type: 'string', description: 'The account id' },
        channel: { type: 'string', enum: ['email', 'sms', 'whatsapp'] },
        recipient: { type: 'string' },
        family: { type: 'string', enum: ['transactional', 'campaign'] },
        metadata: { type: 'object', description: 'The send\'s own `metadata`, when it carried one' },
        certified: { type: 'boolean', const: true, description: 'Certified email only; certified email has no tracking fields' },
        tracking: { type: 'object', properties: { opens: { type: 'boolean' }, clicks: { type: 'boolean' } }, description: 'Email that is not certified' },
        campaign_id: { type: 'string', description: 'A message of a campaign of /v1/campaigns: the campaign (the Email Marketing family)' },
        campaign_name: { type: 'string', description: 'With campaign_id: the campaign\'s name' },
        list_ids: { type: 'array', items: { type: 'string' }, description: 'With campaign_id: the lists the campaign was sent to' },
        ...attemptFields,
        test: { type: 'boolean', const: true, description: 'Sent with a test key (docs/sandbox.md); absent on live messages' },
        simulated: { type: 'boolean', const: true, description: 'To a simulator recipient (docs/sandbox.md): nothing was sent anywhere; absent otherwise' },
      },
      additionalProperties: true,
    },
  },
});

/**
 * The OpenAPI 3.1 `webhooks` section: one entry per public event type, each a POST
 * to the account's webhook URL signed per Standard Webhooks.
 */
export function eventWebhooks(): Record<string, OpenAPIV3_1.PathItemObject> {
  const signed = [
    { name: 'webhook-id', in: 'header', required: true, schema: { type: 'string' }, description: 'The event id; the same on every retry' },
    { name: 'webhook-timestamp', in: 'header', required: true, schema: { type: 'string' }, description: 'Seconds since the epoch, when this attempt was signed' },
    { name: 'webhook-signature', in: 'header', required: true, schema: { type: 'string' }, description: 'v1,<base64 HMAC-SHA256 of id.timestamp.body>, space-separated when two secrets overlap' },
  ];
  return Object.fromEntries(EVENT_TYPES.map((type): [string, OpenAPIV3_1.PathItemObject] => [type, {
    post: {
      summary: type,
      description: EVENT_DESCRIPTIONS[type],
      parameters: signed,
      requestBody: { required: true, content: { 'application/json': { schema: eventPayloadSchema(type) } } },
      responses: { '2XX': { description: 'Received; any other answer (or none within the time-out) is retried on the published schedule' } },
    },
  } as OpenAPIV3_1.PathItemObject]));
}
