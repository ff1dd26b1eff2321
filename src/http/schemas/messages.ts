// The message log (GET /v1/messages, /v1/messages/:msgid): the interface's message ids, read back.
import { Type, type Static } from '@sinclair/typebox';
import { MESSAGE_STATUSES } from '../../domain/message-status.ts';

/** The query of GET /v1/messages as the log page uses it (`until` is this addition). */
export const MessageLogQuery = Type.Object({
  status: Type.Optional(Type.String()),
  channel: Type.Optional(Type.Union([Type.Literal('email'), Type.Literal('sms'), Type.Literal('whatsapp')])),
  recipient: Type.Optional(Type.String({ description: 'Exact address or number' })),
  since: Type.Optional(Type.String({ description: 'Created at or after: ISO-8601 or epoch ms' })),
  until: Type.Optional(Type.String({ description: 'Created before: ISO-8601 or epoch ms' })),
  cursor: Type.Optional(Type.String()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
});
export type MessageLogQuery = Static<typeof MessageLogQuery>;

/** Content-Security-Policy of GET /v1/messages/:msgid/preview (the sandboxed iframe's document). */
export const PREVIEW_CSP = 'default-src \'none\'; img-src data:; style-src \'unsafe-inline\'; frame-ancestors \'self\'; sandbox';

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

/** What a message was (issue 24): on the log's rows and the message page. */
const messageFacts = {
  subject: { type: ['string', 'null'], description: 'An email\'s subject; null for SMS and WhatsApp' },
  sender: { type: ['string', 'null'], description: 'An email\'s From address; an SMS\'s sender when the send named one; null otherwise (the account\'s default)' },
  campaign: {
    type: ['object', 'null'], required: ['id', 'name'], description: 'The campaign the message belongs to',
    properties: { id: { type: 'string', format: 'uuid' }, name: { type: 'string' } },
  },
  tag: { type: ['string', 'null'], description: 'The `campaign` field the send carried (the API\'s tag)' },
} as const;

const testMode = { type: 'string', enum: ['test'], description: 'Only on a message sent with a test key (docs/sandbox.md)' } as const;
const sendAt = { type: 'string', format: 'date-time', description: 'Only on a scheduled send (its `send_at`, README "Scheduled sends"): when it leaves, or was to leave' } as const;

export const messageView = {
  type: 'object', required: ['msgid', 'channel', 'status', 'recipient', 'created_at', 'source', 'events'],
  properties: {
    msgid: { type: 'string', format: 'uuid' },
    channel: { type: 'string', enum: ['email', 'sms', 'whatsapp'] },
    status: { type: 'string', enum: MESSAGE_STATUSES },
    recipient: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    source: { type: 'string', enum: ['api', 'smtp'], description: 'The door the message came in by: the HTTP API (campaigns included) or SMTP submission (docs/smtp-submission.md)' },
    mode: testMode,
    send_at: sendAt,
    ...messageFacts,
    metadata: { type: ['object', 'null'], additionalProperties: true, description: 'The metadata the send carried' },
    events: { type: 'array', items: messageEvent },
    fallback: {
      type: 'object', required: ['chain_id', 'legs'], description: 'Only on a leg of a fallback chain (docs/fallback.md): every leg, in order',
      properties: {
        chain_id: { type: 'string', format: 'uuid' },
        legs: {
          type: 'array',
          items: {
            type: 'object', required: ['leg', 'channel', 'msgid', 'state', 'status'],
            properties: {
              leg: { type: 'integer', minimum: 1 }, channel: { type: 'string', enum: ['email', 'sms', 'whatsapp'] }, msgid: { type: 'string', format: 'uuid' },
              state: { type: 'string', enum: ['waiting', 'released', 'cancelled'], description: 'waiting: not gone yet; released: its message went; cancelled: the leg before was delivered in time, its cost refunded' },
              status: { type: ['string', 'null'], enum: [...MESSAGE_STATUSES, null], description: 'Its message\'s status; null while it has none' },
            },
          },
        },
      },
    },
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
          send_at: sendAt,
          ...messageFacts,
        },
      },
    },
    next_cursor: { type: ['string', 'null'] },
    total: { type: 'integer', minimum: 0, description: 'With include_total=true: how many messages match, at most 10,000' },
    total_capped: { type: 'boolean', description: 'With include_total=true: more than `total` match (counting stopped there)' },
  },
} as const;
