import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { listUnrouted } from '../../../app/inbound.ts';
import { inboundItem } from '../../schemas/inbound.ts';
import { sendResult } from '../../wire-errors.ts';
import type { RouteDeps } from '../../route-deps.ts';

// GET /admin/v1/unrouted-inbound: what people sent that no account could be found for,
// so the operator sees replies lost to a shared number or a number no account has.
// Registered inside adminRoutes, behind its admin-token hook.

const UnroutedQuery = Type.Object({
  cursor: Type.Optional(Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$', errorMessage: 'must be the nextCursor of a previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, errorMessage: 'must be a whole number from 1 to 200' })),
});
const fieldError = { type: 'object', required: ['message'], properties: { message: { type: 'string' }, detail: { type: 'string' } } } as const;

export function unroutedInboundRoutes(app: FastifyInstance, deps: RouteDeps): void {
  app.get<{ Querystring: Static<typeof UnroutedQuery> }>('/admin/v1/unrouted-inbound', {
    schema: {
      summary: 'Messages people sent that no account could be routed to, newest first', tags: ['admin'], security: [{ adminToken: [] }],
      querystring: UnroutedQuery,
      response: {
        200: { type: 'object', required: ['messages', 'nextCursor'], properties: { messages: { type: 'array', items: inboundItem }, nextCursor: { type: ['string', 'null'] } } },
        400: fieldError,
        401: { description: 'Admin token missing or invalid', ...fieldError },
      },
    },
  }, async (request, reply) => sendResult(reply, await listUnrouted(deps.app, request.query)));
}
