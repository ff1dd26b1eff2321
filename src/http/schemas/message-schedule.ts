// DELETE and PATCH /v1/messages/:msgid/schedule (app/scheduled-sends.ts): a scheduled send's message, cancelled or moved.
import { Type, type Static } from '@sinclair/typebox';
import { MESSAGE_STATUSES } from '../../domain/message-status.ts';
import { applicationError } from './errors.ts';

export const RescheduleRequest = Type.Object({
  send_at: Type.String({ description: 'The new time: ISO 8601 with a UTC offset or Z, in the future and at most 72 hours ahead' }),
}, { additionalProperties: false });
export type RescheduleRequest = Static<typeof RescheduleRequest>;

export const scheduleCancelled = {
  type: 'object', required: ['msgid', 'status', 'refunded'],
  properties: {
    msgid: { type: 'string', format: 'uuid' },
    status: { type: 'string', enum: ['cancelled'] },
    refunded: {
      type: 'object', required: ['messages', 'balance'], description: 'What was given back to the account (a `refund` ledger entry); zeros for a test key\'s message',
      properties: { messages: { type: 'integer', minimum: 0 }, balance: { type: 'number', minimum: 0, description: 'In major units, as `current_balance`' } },
    },
  },
} as const;

export const scheduleMoved = {
  type: 'object', required: ['msgid', 'status', 'send_at'],
  properties: { msgid: { type: 'string', format: 'uuid' }, status: { type: 'string', enum: ['scheduled'] }, send_at: { type: 'string', format: 'date-time' } },
} as const;

export const notScheduled = {
  description: '`The message is not scheduled`, with `status`: the message\'s status now (it left, or was cancelled)',
  type: 'object', required: ['message', 'status'], properties: { message: { type: 'string' }, status: { type: 'string', enum: MESSAGE_STATUSES } },
} as const;

export const scheduleErrors = {
  401: { description: '`API key not authorized.`: the key has no scope of the message\'s channel', ...applicationError },
  403: { description: '`A test key cannot do this`: a test key on a live message', ...applicationError },
  404: { description: '`Not found`: no such message in this account', ...applicationError },
  409: notScheduled,
} as const;
