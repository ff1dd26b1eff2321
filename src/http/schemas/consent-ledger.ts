import { Type } from '@sinclair/typebox';
import { CHANNELS } from '../../domain/account.ts';

// The consent ledger's shapes (GET /v1/consent, its exports, POST /v1/consent).

export const ledgerEntry = {
  type: 'object', required: ['id', 'channel', 'address', 'sender', 'change', 'source', 'keyword', 'proof', 'at'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    channel: { type: 'string', enum: CHANNELS },
    address: { type: 'string' },
    sender: { type: 'string', description: 'The account\'s sender the change is about (an SMS number, a WhatsApp phone number id); empty when it is about every sender' },
    change: { type: 'string', enum: ['opted_out', 'opted_in'] },
    source: { type: 'string', enum: ['keyword', 'unsubscribe', 'complaint', 'list', 'api', 'web'] },
    keyword: { type: ['string', 'null'], description: 'The words the person sent, for a keyword' },
    proof: { type: 'object', additionalProperties: true, description: 'inbound_id, request_id, ip, user_agent, message_id, list_id: whichever the change has' },
    at: { type: 'string', format: 'date-time' },
  },
} as const;

const channelState = {
  type: 'object', required: ['state', 'opted_out_of'],
  properties: {
    state: { type: 'string', enum: ['opted_in', 'opted_out'] },
    opted_out_of: { type: 'array', items: { type: 'object', required: ['sender', 'since'], properties: { sender: { type: 'string' }, since: { type: 'string', format: 'date-time' } } } },
  },
} as const;

export const consentView = {
  type: 'object', required: ['address', 'channels', 'suppression', 'history'],
  properties: {
    address: { type: 'string' },
    channels: { type: 'object', required: [...CHANNELS], properties: Object.fromEntries(CHANNELS.map((c) => [c, channelState])) },
    suppression: {
      type: ['object', 'null'], description: 'The email suppression (a delivery matter: bounces, complaints, unsubscribes), kept apart from consent',
      properties: { reason: { type: 'string' }, since: { type: 'string', format: 'date-time' } },
    },
    history: { type: 'array', items: ledgerEntry, description: 'The latest 200 changes, newest first' },
  },
} as const;

export const consentChangeBody = Type.Object({
  channel: Type.Union(CHANNELS.map((c) => Type.Literal(c)), { errorMessage: 'must be email, sms or whatsapp' }),
  address: Type.String({ minLength: 1, maxLength: 320 }),
  change: Type.Union([Type.Literal('opted_out'), Type.Literal('opted_in')], { errorMessage: 'must be opted_out or opted_in' }),
  sender: Type.Optional(Type.String({ maxLength: 64, description: 'The sender it is about; absent: every sender' })),
}, { additionalProperties: false });
