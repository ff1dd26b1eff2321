import { Type } from '@sinclair/typebox';
import { CHANNELS } from '../../domain/account.ts';
import { MAX_SIMULATED_TEXT } from '../../app/simulate-inbound.ts';

// What people sent (GET /v1/inbound, the `*.received` webhooks' data) and the consent ledger.

const attachment = {
  type: 'object', required: ['id', 'filename', 'content_type', 'size', 'state', 'url'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    filename: { type: ['string', 'null'] },
    content_type: { type: ['string', 'null'] },
    size: { type: 'integer', minimum: 0 },
    state: { type: 'string', enum: ['pending', 'stored', 'failed'], description: 'WhatsApp media is fetched from Meta in the background: pending until it is stored' },
    url: { type: 'string', description: 'Where the account fetches it, with its key or session' },
  },
} as const;

/** An inbound message: the common fields, then the channel's own (WhatsApp `type`, email `subject`, `html`, `authentication`…). */
export const inboundItem = {
  type: 'object', required: ['id', 'channel', 'from', 'to', 'text', 'received_at'], additionalProperties: true,
  properties: {
    id: { type: 'string', format: 'uuid' },
    account: { type: 'string' },
    channel: { type: 'string', enum: ['email', 'sms', 'whatsapp'] },
    from: { type: 'string', description: 'The person: `+` and digits, or an email address' },
    to: { type: 'string', description: 'The account\'s SMS sender, WhatsApp phone number id or receiving address written to' },
    text: { type: ['string', 'null'] },
    received_at: { type: 'string', format: 'date-time' },
    keyword: { type: 'string', enum: ['stop', 'start', 'help'], description: 'When the message was an opt-out keyword' },
    in_reply_to: { type: 'string', description: 'The msgid of herald\'s message this one answers' },
    attachments: { type: 'array', items: attachment },
    test: { type: 'boolean', enum: [true], description: 'Sent through the sandbox simulator' },
  },
} as const;

export const inboundPage = {
  type: 'object', required: ['data', 'next_cursor'],
  properties: { data: { type: 'array', items: inboundItem }, next_cursor: { type: ['string', 'null'] } },
} as const;

export const simulatedInboundBody = Type.Object({
  channel: Type.Union(CHANNELS.map((c) => Type.Literal(c)), { errorMessage: 'must be email, sms or whatsapp' }),
  from: Type.String({ minLength: 1, maxLength: 320, description: 'A simulator number (+447700900 and three digits) or an address at simulator.herald.test' }),
  to: Type.Optional(Type.String({ minLength: 1, maxLength: 320, description: 'Default: the account\'s default SMS sender, its WhatsApp phone number id, or inbound@simulator.herald.test' })),
  text: Type.String({ maxLength: MAX_SIMULATED_TEXT }),
  subject: Type.Optional(Type.String({ maxLength: 998 })),
}, { additionalProperties: false });
