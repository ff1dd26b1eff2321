// JSON Schemas of the interface, for the OpenAPI document only: the v1 routes
// validate in domain/ (to answer with the spec's exact texts), so these schemas
// describe the wire and are never used to reject a request.
import { EVENT_DESCRIPTIONS, EVENT_TYPES, type EventType } from '../domain/event-catalogue.ts';
import { MESSAGE_STATUSES } from '../domain/message-status.ts';
// The OpenAPI types @fastify/swagger itself is typed with.
import type { OpenAPIV3_1 } from 'openapi-types';

const recipient = { type: 'object', required: ['email'], properties: { email: { type: 'string', format: 'email' } } } as const;
const named = {
  type: 'object', required: ['email', 'name'],
  properties: { email: { type: 'string', format: 'email' }, name: { type: 'string' } },
} as const;

export const applicationError = { type: 'object', required: ['message'], properties: { message: { type: 'string' } } } as const;
export const validationError = {
  type: 'object', required: ['message'],
  properties: {
    message: { type: 'string' },
    error: { type: 'array', items: { type: 'object', additionalProperties: { type: 'string' } } },
  },
} as const;
export const authenticationError = { type: 'object', required: ['error'], properties: { error: { type: 'string' } } } as const;
export const rateLimitError = {
  type: 'object', required: ['success', 'message', 'error'],
  properties: { success: { type: 'boolean', const: false }, message: { type: 'string' }, error: { type: 'string', const: 'RATE_LIMIT_EXCEEDED' } },
} as const;

/** The error responses every /v1 operation can give, as the spec lists them. */
export const commonErrors = {
  400: { description: 'Invalid request (see the spec\'s error table)', ...validationError },
  401: { description: 'Account or key not allowed to do this', ...applicationError },
  403: { description: 'Authentication failed', ...authenticationError },
  429: { description: 'Request rate above the account\'s limit', ...rateLimitError },
  500: { description: 'Internal failure while validating authentication', ...authenticationError },
} as const;

/** herald's own send fields beyond the spec's (domain/send-options.ts); SMS and WhatsApp take metadata and campaign. */
export const sendOptionFields = {
  metadata: { type: 'object', additionalProperties: true, description: 'Any JSON object (≤ 4,096 bytes, ≤ 16 levels): echoed in every webhook event of the send' },
  campaign: { type: 'string', maxLength: 200, description: 'A campaign name: the send belongs to the `campaign` family of events' },
} as const;

/** Email only: certified delivery and tracking over the account's defaults. */
export const emailOptionFields = {
  ...sendOptionFields,
  certified: { type: 'boolean', description: 'Keep signed evidence of delivery (docs/certified-delivery.md); certified email is never tracked' },
  tracking: {
    type: 'object', additionalProperties: false, description: 'Open and click tracking for this send, over the account\'s defaults',
    properties: { opens: { type: 'boolean' }, clicks: { type: 'boolean' } },
  },
} as const;

export const emailRequest = {
  type: 'object',
  required: ['to', 'from', 'replyTo', 'subject'],
  properties: {
    ...emailOptionFields,
    to: { type: 'array', items: recipient },
    options: { type: 'object', properties: { cc: { type: 'array', items: recipient }, bcc: { type: 'array', items: recipient } } },
    from: named,
    replyTo: named,
    subject: { type: 'string', minLength: 1 },
    body: { type: 'string', description: 'HTML or plain text; not required when template_id is given (the template wins when both are).' },
    template_id: { type: 'string' },
    variables: { type: 'object', additionalProperties: { type: 'string' }, description: 'Values for the template\'s `{{name}}` placeholders; text only (any other value is `Incorrect variable syntax`)' },
    attachments: {
      type: 'array',
      items: {
        type: 'object', required: ['filename', 'path'],
        properties: { filename: { type: 'string' }, path: { type: 'string', description: 'http(s) URL, fetched at delivery, or a base64 data: URI' } },
      },
    },
  },
} as const;

export const emailResponse = {
  type: 'object', required: ['message', 'to'],
  properties: {
    message: { type: 'string' },
    to: { type: 'array', items: { type: 'object', required: ['email', 'msgid'], properties: { email: { type: 'string' }, msgid: { type: 'string', format: 'uuid' } } } },
  },
} as const;

export const smsRequest = {
  type: 'object', required: ['message', 'mobile_numbers'],
  properties: {
    message: { type: 'string', description: '160 characters a segment; characters outside GSM 03.38 are transliterated or removed' },
    mobile_numbers: { type: 'array', items: { type: 'string', pattern: '^\\+[0-9]{10,15}$' } },
    ...sendOptionFields,
  },
} as const;

export const smsResponse = {
  type: 'object', required: ['result', 'total_contacts', 'total_messages_sent', 'messages_left'],
  properties: {
    result: { type: 'string' },
    total_contacts: { type: 'integer' },
    total_messages_sent: { type: 'integer' },
    messages_left: { type: 'integer' },
    messages: { type: 'array', items: { type: 'object', properties: { mobile_number: { type: 'string' }, msgid: { type: 'string', format: 'uuid' } } } },
  },
} as const;

export const whatsappRequest = {
  type: 'object', required: ['destination', 'templateId'],
  properties: {
    destination: { type: 'string', pattern: '^\\+?[0-9]{8,15}$' },
    templateId: { type: 'string' },
    params: { type: 'array', items: { type: 'string' } },
    ...sendOptionFields,
  },
} as const;

export const whatsappResponse = {
  type: 'object', required: ['result', 'current_balance'],
  properties: { result: { type: 'string' }, current_balance: { type: 'number' }, msgid: { type: 'string', format: 'uuid' } },
} as const;

/** What a delivery attempt's event carries (outbox/complete.ts); a DSN's, a report's or an engagement's carry their own fields. */
export const attemptFields = {
  attempt: { type: 'integer', minimum: 1, description: 'The delivery attempt (1 for the first)' },
  peer: { type: 'string', description: 'Who answered: an MX host, a relay, the SMSC, Meta, or `capture`' },
  response: { type: 'string', description: 'The peer\'s answer, e.g. `250 2.0.0 OK` or `550 5.1.1 …`' },
} as const;

const messageEvent = {
  type: 'object', required: ['type', 'at'], additionalProperties: true,
  properties: { type: { type: 'string' }, at: { type: 'string', format: 'date-time' }, ...attemptFields },
} as const;

const testMode = { type: 'string', enum: ['test'], description: 'Only on a message sent with a test key (docs/sandbox.md)' } as const;

export const messageView = {
  type: 'object', required: ['msgid', 'channel', 'status', 'recipient', 'created_at', 'events'],
  properties: {
    msgid: { type: 'string', format: 'uuid' },
    channel: { type: 'string', enum: ['email', 'sms', 'whatsapp'] },
    status: { type: 'string', enum: MESSAGE_STATUSES },
    recipient: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    mode: testMode,
    events: { type: 'array', items: messageEvent },
  },
} as const;

export const messagePage = {
  type: 'object', required: ['data', 'next_cursor'],
  properties: {
    data: {
      type: 'array',
      items: {
        type: 'object', required: ['msgid', 'channel', 'status', 'recipient', 'created_at', 'updated_at'],
        properties: {
          msgid: { type: 'string', format: 'uuid' }, channel: { type: 'string' }, status: { type: 'string', enum: MESSAGE_STATUSES },
          recipient: { type: 'string' }, created_at: { type: 'string', format: 'date-time' }, updated_at: { type: 'string', format: 'date-time' },
          mode: testMode,
        },
      },
    },
    next_cursor: { type: ['string', 'null'] },
  },
} as const;


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
