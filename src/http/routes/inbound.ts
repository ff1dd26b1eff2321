import type { FastifyInstance } from 'fastify';
import { getAccountInbound, getInboundAttachment, getInboundRaw, listAccountInbound } from '../../app/inbound.ts';
import { simulateInbound, type SimulatedInboundBody } from '../../app/simulate-inbound.ts';
import { reject } from '../../domain/result.ts';
import { InboundListQuery } from '../../domain/inbound-query.ts';
import { callerOf, visibleChannels } from '../route-access.ts';
import { applicationError } from '../schemas/errors.ts';
import { inboundItem, inboundPage, simulatedInboundBody } from '../schemas/inbound.ts';
import { sendRejection, sendResult } from '../wire-errors.ts';
import type { RouteDeps } from '../route-deps.ts';

// What people sent the account. Scope `channel`: a key sees the channels it holds a scope of.
const access = { scope: 'channel', access: 'read' } as const;
const tags = ['inbound'];
const params = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } as const;

/**
 * Inbound content is the sender's, never herald's: files are served as downloads, with
 * a policy that runs nothing and a type the browser may not guess past, so no page of
 * herald's origin ever renders them.
 */
const DOWNLOAD_HEADERS = {
  'content-security-policy': "default-src 'none'; sandbox", 'x-content-type-options': 'nosniff', 'cache-control': 'private, no-store',
  'referrer-policy': 'no-referrer',
} as const;

/** `attachment; filename="…"` with the name's unsafe characters replaced, and its UTF-8 form (RFC 6266). */
function disposition(filename: string | null): string {
  if (filename === null) return 'attachment';
  const plain = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${plain}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

export function inboundRoutes(app: FastifyInstance, { app: deps }: RouteDeps): void {
  app.get<{ Querystring: InboundListQuery }>('/v1/inbound', {
    schema: {
      summary: 'What people sent the account (SMS, WhatsApp, email), newest first, with filters and a cursor', tags,
      querystring: InboundListQuery, response: { 200: inboundPage, 400: applicationError, 401: applicationError },
    },
    config: { access },
  }, async (request, reply) => sendResult(reply, await listAccountInbound(deps, callerOf(request).account.id, request.query, visibleChannels(request))));

  app.get<{ Params: { id: string } }>('/v1/inbound/:id', {
    schema: { summary: 'One inbound message, as its `*.received` webhook posted it', tags, params, response: { 200: inboundItem, 404: applicationError } },
    config: { access },
  }, async (request, reply) => sendResult(reply, await getAccountInbound(deps, callerOf(request).account.id, request.params.id, visibleChannels(request))));

  app.get<{ Params: { id: string } }>('/v1/inbound/:id/raw', {
    schema: {
      summary: 'The message as it arrived: an email\'s MIME, or the fields the SMSC or Meta gave as JSON', tags, params,
      response: { 200: { description: 'message/rfc822 or JSON', content: { 'message/rfc822': { schema: { type: 'string' } }, 'application/json': { schema: { type: 'object' } } } }, 404: applicationError },
    },
    config: { access },
  }, async (request, reply) => {
    const raw = await getInboundRaw(deps, callerOf(request).account.id, request.params.id, visibleChannels(request));
    if (!raw.ok) return sendRejection(reply, raw.rejection);
    return reply.type(raw.value.contentType).headers(DOWNLOAD_HEADERS).send(raw.value.body);
  });

  app.get<{ Params: { id: string; attachmentId: string } }>('/v1/inbound/:id/attachments/:attachmentId', {
    schema: {
      summary: 'A file that came with an inbound message (an email attachment, WhatsApp media once fetched), as a download', tags,
      params: { type: 'object', required: ['id', 'attachmentId'], properties: { id: { type: 'string' }, attachmentId: { type: 'string' } } },
      response: { 200: { description: 'The file\'s bytes', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } }, 404: applicationError },
    },
    config: { access },
  }, async (request, reply) => {
    const file = await getInboundAttachment(deps, callerOf(request).account.id, request.params.id, request.params.attachmentId, visibleChannels(request));
    if (!file.ok) return sendRejection(reply, file.rejection);
    return reply.type(file.value.contentType).headers({ ...DOWNLOAD_HEADERS, 'content-disposition': disposition(file.value.filename) }).send(file.value.content);
  });

  app.post<{ Body: SimulatedInboundBody }>('/v1/sandbox/inbound', {
    schema: {
      summary: 'A message from a simulator number or address (docs/sandbox.md), taken as if it had arrived: stored, its keyword applied, posted as `*.received` with `test: true`', tags,
      body: simulatedInboundBody, response: { 201: inboundItem, 400: applicationError, 401: applicationError },
    },
    config: { access: { scope: 'channel', access: 'write' } },
  }, async (request, reply) => {
    if (!visibleChannels(request).includes(request.body.channel)) return sendRejection(reply, reject('keyNotAuthorized').rejection);
    return sendResult(reply, await simulateInbound(deps, callerOf(request).account, request.body), 201);
  });
}
