import type { FastifyInstance } from 'fastify';
import { getCapturedMessage, getEmailPreview, getMessage, listAccountMessages, type EmailPreview } from '../../app/get-message.ts';
import { MessageListQuery } from '../../domain/message-query.ts';
import { PREVIEW_CSP } from '../schemas/messages.ts';
import { callerOf, visibleChannels } from '../route-access.ts';
import { sendRejection, sendResult } from '../wire-errors.ts';
import { applicationError } from '../schemas/errors.ts';
import { messagePage, messageView } from '../schemas/messages.ts';
import type { RouteDeps } from '../route-deps.ts';

const params = { type: 'object', required: ['msgid'], properties: { msgid: { type: 'string' } } } as const;

// Scope `channel`: a caller sees the messages of the channels it holds a scope of.
const access = { scope: 'channel', access: 'read' } as const;

/** The preview document: the HTML as sent, or the text part in a <pre> when there was no HTML. */
function previewDocument(preview: EmailPreview): string {
  if (preview.html !== null) return preview.html;
  const escaped = (preview.text ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><meta charset="utf-8"><pre style="white-space: pre-wrap; font: 14px/1.5 monospace">${escaped}</pre>`;
}

/** A message's status and events, and for captured email the MIME as it would have gone out. */
export function messageRoutes(app: FastifyInstance, { app: deps }: RouteDeps): void {
  app.get<{ Querystring: MessageListQuery }>('/v1/messages', {
    schema: {
      summary: 'The account\'s messages of the channels the key may read, newest first, with filters and a cursor', tags: ['messages'],
      querystring: MessageListQuery, response: { 200: messagePage, 400: applicationError },
    },
    config: { access },
  }, async (request, reply) => sendResult(reply, await listAccountMessages(deps, callerOf(request).account.id, request.query, visibleChannels(request))));

  app.get<{ Params: { msgid: string } }>('/v1/messages/:msgid', {
    schema: { summary: 'A message, its status and its events', tags: ['messages'], params, response: { 200: messageView, 404: applicationError } },
    config: { access },
  }, async (request, reply) => sendResult(reply, await getMessage(deps, callerOf(request).account.id, request.params.msgid, visibleChannels(request))));

  app.get<{ Params: { msgid: string } }>('/v1/messages/:msgid/raw', {
    schema: {
      summary: 'What the capture transport stored: message/rfc822 for email, JSON for SMS and WhatsApp',
      tags: ['messages'], params,
      response: { 200: { description: 'The captured wire form', content: { 'message/rfc822': { schema: { type: 'string' } }, 'application/json': { schema: { type: 'object' } } } }, 404: applicationError, 410: { description: 'The content was purged after the retention period (HERALD_RETENTION_DAYS)', ...applicationError } },
    },
    config: { access },
  }, async (request, reply) => {
    const capture = await getCapturedMessage(deps, callerOf(request).account.id, request.params.msgid, visibleChannels(request));
    if (!capture.ok) return sendRejection(reply, capture.rejection);
    return reply.type(capture.value.contentType).send(capture.value.body);
  });

  app.get<{ Params: { msgid: string } }>('/v1/messages/:msgid/preview', {
    schema: {
      summary: 'The email as its recipient sees it, for a sandboxed frame: served with a Content-Security-Policy that runs no script and loads nothing (images only as data: URLs)',
      tags: ['messages'], params,
      response: { 200: { description: 'The HTML part as sent (the text part in a <pre> when there was none)', content: { 'text/html': { schema: { type: 'string' } } } }, 404: applicationError, 410: { description: 'The content was purged after the retention period (HERALD_RETENTION_DAYS)', ...applicationError } },
    },
    config: { access },
  }, async (request, reply) => {
    const preview = await getEmailPreview(deps, callerOf(request).account.id, request.params.msgid, visibleChannels(request));
    if (!preview.ok) return sendRejection(reply, preview.rejection);
    return reply
      .type('text/html; charset=utf-8')
      .headers({
        'content-security-policy': PREVIEW_CSP, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer',
        'x-frame-options': 'SAMEORIGIN', 'cache-control': 'private, no-store',
      })
      .send(previewDocument(preview.value));
  });
}

