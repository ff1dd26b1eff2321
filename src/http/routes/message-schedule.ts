import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { cancelScheduled, rescheduleMessage, scheduleCallerRefusal, type ScheduleCaller } from '../../app/scheduled-sends.ts';
import { callerOf, sendingMode, visibleChannels } from '../route-access.ts';
import { sendRejection, sendResult } from '../wire-errors.ts';
import { RescheduleRequest, scheduleCancelled, scheduleErrors, scheduleMoved } from '../schemas/message-schedule.ts';
import { applicationError } from '../schemas/errors.ts';
import type { RouteDeps } from '../route-deps.ts';

// A scheduled send's message (README "Scheduled sends"): cancelled (refunded) or moved while it still waits.
// Scope `channel` with write access: the scope of the message's channel, checked once the message is read.
const params = { type: 'object', required: ['msgid'], properties: { msgid: { type: 'string' } } } as const;
const access = { scope: 'channel', access: 'write' } as const;

const callerFrom = (request: FastifyRequest): ScheduleCaller => ({
  accountId: callerOf(request).account.id, channels: visibleChannels(request), mode: sendingMode(request),
});

export function messageScheduleRoutes(app: FastifyInstance, { app: deps }: RouteDeps): void {
  // Before the body's schema is checked: a key without the message's channel is refused as on the other message routes.
  const callerMayTouch = async (request: FastifyRequest<{ Params: { msgid: string } }>, reply: FastifyReply): Promise<void> => {
    const refusal = await scheduleCallerRefusal(deps, callerFrom(request), request.params.msgid);
    if (refusal !== undefined) return void sendRejection(reply, refusal);
  };

  app.delete<{ Params: { msgid: string } }>('/v1/messages/:msgid/schedule', {
    schema: {
      summary: 'Cancel a scheduled message before its time: it is never sent, and what it was billed is refunded', tags: ['messages'], params,
      response: { 200: scheduleCancelled, ...scheduleErrors },
    },
    config: { access },
  }, async (request, reply) => sendResult(reply, await cancelScheduled(deps, callerFrom(request), request.params.msgid)));

  app.patch<{ Params: { msgid: string }; Body: RescheduleRequest }>('/v1/messages/:msgid/schedule', {
    schema: {
      summary: 'Move a scheduled message to another time (at most 72 hours ahead)', tags: ['messages'], params, body: RescheduleRequest,
      response: { 200: scheduleMoved, 400: { description: '`Invalid request, a field has the wrong type or value`, with `detail`', ...applicationError }, ...scheduleErrors },
    },
    config: { access },
    preValidation: callerMayTouch,
  }, async (request, reply) => sendResult(reply, await rescheduleMessage(deps, callerFrom(request), request.params.msgid, request.body)));
}
