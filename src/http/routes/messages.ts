import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app/deps.ts';
import { getCapturedMessage, getMessage, listAccountMessages } from '../../app/get-message.ts';
import { MessageListQuery } from '../../domain/message-query.ts';
import { callerOf, visibleChannels } from '../route-access.ts';
import { sendRejection } from '../wire-errors.ts';
import * as schemas from '../schemas.ts';

const params = { type: 'object', required: ['msgid'], properties: { msgid: { type: 'string' } } } as const;

// Scope `channel`: a caller sees the messages of the channels it holds a scope of.
const access = { scope: 'channel', access: 'read' } as const;

/** A message's status and events, and for captured email the MIME as it would have gone out. */
export function messageRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get<{ Querystring: MessageListQuery }>('/v1/messages', {
    schema: {
      summary: 'The account\'s messages of the channels the key may read, newest first, with filters and a cursor', tags: ['messages'],
      querystring: MessageListQuery, response: { 200: schemas.messagePage, 400: schemas.applicationError },
    },
    config: { access },
  }, async (request, reply) => {
    const page = await listAccountMessages(deps, callerOf(request).account.id, request.query, visibleChannels(request));
    return page.ok ? page.value : sendRejection(reply, page.rejection);
  });

  app.get<{ Params: { msgid: string } }>('/v1/messages/:msgid', {
    schema: { summary: 'A message, its status and its events', tags: ['messages'], params, response: { 200: schemas.messageView, 404: schemas.applicationError } },
    config: { access },
  }, async (request, reply) => {
    const view = await getMessage(deps, callerOf(request).account.id, request.params.msgid, visibleChannels(request));
    return view.ok ? view.value : sendRejection(reply, view.rejection);
  });

  app.get<{ Params: { msgid: string } }>('/v1/messages/:msgid/raw', {
    schema: {
      summary: 'What the capture transport stored: message/rfc822 for email, JSON for SMS and WhatsApp',
      tags: ['messages'], params,
      response: { 200: { description: 'The captured wire form', content: { 'message/rfc822': { schema: { type: 'string' } }, 'application/json': { schema: { type: 'object' } } } }, 404: schemas.applicationError },
    },
    config: { access },
  }, async (request, reply) => {
    const capture = await getCapturedMessage(deps, callerOf(request).account.id, request.params.msgid, visibleChannels(request));
    if (!capture.ok) return sendRejection(reply, capture.rejection);
    return reply.type(capture.value.contentType).send(capture.value.body);
  });
}
