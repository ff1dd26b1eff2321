import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app/deps.ts';
import { getCapturedMessage, getMessage, listAccountMessages } from '../../app/get-message.ts';
import { callerOf } from '../plugins/api-key-auth.ts';
import { sendRejection } from '../wire-errors.ts';
import * as schemas from '../schemas.ts';

const params = { type: 'object', required: ['msgid'], properties: { msgid: { type: 'string' } } } as const;

/** A message's status and events, and for captured email the MIME as it would have gone out. */
export function messageRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get('/v1/messages', {
    schema: {
      summary: 'The account\'s messages, newest first, with filters and a cursor', tags: ['messages'], security: schemas.bearerSecurity,
      querystring: schemas.messageQuery, response: { 200: schemas.messagePage, 400: schemas.applicationError },
    },
  }, async (request, reply) => {
    const page = await listAccountMessages(deps, callerOf(request).account.id, request.query);
    if (!page.ok) return sendRejection(reply, page.rejection);
    return page.value;
  });

  app.get<{ Params: { msgid: string } }>('/v1/messages/:msgid', {
    schema: { summary: 'A message, its status and its events', tags: ['messages'], security: schemas.bearerSecurity, params, response: { 200: schemas.messageView, 404: schemas.applicationError } },
  }, async (request, reply) => {
    const view = await getMessage(deps, callerOf(request).account.id, request.params.msgid);
    if (!view) return sendRejection(reply, { code: 'notFound' });
    return view;
  });

  app.get<{ Params: { msgid: string } }>('/v1/messages/:msgid/raw', {
    schema: {
      summary: 'What the capture transport stored: message/rfc822 for email, JSON for SMS and WhatsApp',
      tags: ['messages'], security: schemas.bearerSecurity, params,
      response: { 200: { description: 'The captured wire form', content: { 'message/rfc822': { schema: { type: 'string' } }, 'application/json': { schema: { type: 'object' } } } }, 404: schemas.applicationError },
    },
  }, async (request, reply) => {
    const capture = await getCapturedMessage(deps, callerOf(request).account.id, request.params.msgid);
    if (!capture) return sendRejection(reply, { code: 'notFound' });
    return reply.type(capture.contentType).send(capture.body);
  });
}
