import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import {
  addAccountSuppressions, exportAccountSuppressions, listAccountSuppressions, removeAccountSuppression, MAX_SUPPRESSIONS_PER_REQUEST, SuppressionExportQuery, SuppressionListQuery,
} from '../../app/suppressions.ts';
import { isSimulatorRecipient, SIMULATOR_EMAIL_DOMAIN } from '../../domain/simulator.ts';
import { callerOf, refuseLiveThing, sendingMode } from '../route-access.ts';
import { sendRejection, sendResult } from '../wire-errors.ts';
import { applicationError, authenticationError, rateLimitError, validationError } from '../schemas/errors.ts';
import type { RouteDeps } from '../route-deps.ts';

// The account's suppression list (scope `email`): addresses herald does not send to.
// Schemas document the wire only; app/suppressions.ts validates.

const suppression = {
  type: 'object', required: ['email', 'reason', 'msgid', 'created_at'],
  properties: {
    email: { type: 'string', format: 'email', description: 'Lower-cased' },
    reason: {
      type: 'string', enum: ['unsubscribed', 'bounced', 'complained', 'manual'],
      description: '`unsubscribed` (List-Unsubscribe or one-click), `bounced` (hard bounce), `complained` (spam report), `manual` (added through this API)',
    },
    msgid: { type: ['string', 'null'], description: 'The message that caused it; null for manual entries' },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const;

const errors = {
  401: { description: 'The key lacks the scope (`API key not authorized.`)', ...applicationError },
  403: { description: 'Authentication failed', ...authenticationError },
  429: { description: 'Request rate above the account\'s limit', ...rateLimitError },
} as const;

const tags = ['suppressions'];

const SIMULATOR_ONLY = `a test key removes only simulator addresses (@${SIMULATOR_EMAIL_DOMAIN}) from the suppression list`;

export function suppressionRoutes(app: FastifyInstance, { app: deps }: RouteDeps): void {

  app.get<{ Querystring: SuppressionListQuery }>('/v1/suppressions', {
    schema: {
      summary: 'The account\'s suppressed addresses, in address order, a page at a time', tags,
      querystring: SuppressionListQuery,
      response: {
        200: { type: 'object', required: ['data', 'next_cursor'], properties: { data: { type: 'array', items: suppression }, next_cursor: { type: ['string', 'null'] } } },
        400: { description: 'A bad cursor or limit', ...applicationError },
        ...errors,
      },
    },
    config: { access: { scope: 'email', access: 'read' } },
  }, async (request, reply) => sendResult(reply, await listAccountSuppressions(deps, callerOf(request).account.id, request.query)));

  app.get<{ Querystring: SuppressionExportQuery }>('/v1/suppressions/export', {
    schema: {
      summary: 'The whole list as CSV (`email,reason,msgid,created_at`, RFC 4180, CRLF), in address order, cells that would start a spreadsheet formula (`=`, `+`, `-`, `@`, tab, CR) prefixed with a single quote; `q` as for the list', tags,
      querystring: SuppressionExportQuery,
      response: {
        200: { description: 'text/csv, sent as an attachment named suppressions.csv', content: { 'text/csv': { schema: { type: 'string' } } } },
        400: { description: 'A bad q', ...applicationError },
        503: { description: '`The request took too long to answer`: the first slice of the list took longer than HERALD_HEAVY_READ_TIMEOUT_MS', ...applicationError },
        ...errors,
      },
    },
    config: { access: { scope: 'email', access: 'read' } },
  }, async (request, reply) => {
    const lines = await exportAccountSuppressions(deps, callerOf(request).account.id, request.query);
    if (!lines.ok) return sendRejection(reply, lines.rejection);
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="suppressions.csv"')
      .send(Readable.from(lines.value));
  });

  app.post('/v1/suppressions', {
    schema: {
      summary: `Suppress addresses (reason \`manual\`): {"email": "…"} or {"emails": [up to ${MAX_SUPPRESSIONS_PER_REQUEST}]}; an address already suppressed keeps its entry`,
      tags,
      body: {
        type: 'object',
        properties: {
          email: { type: 'string', format: 'email' },
          emails: { type: 'array', items: { type: 'string', format: 'email' }, minItems: 1, maxItems: MAX_SUPPRESSIONS_PER_REQUEST },
        },
      },
      response: {
        200: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: suppression, description: 'Each address as it now stands, in the order given' } } },
        400: { description: '`Email missing or empty!`, or `The email address has the wrong structure!` with the offending addresses', ...validationError },
        ...errors,
      },
    },
    config: { access: { scope: 'email', access: 'write' } },
  }, async (request, reply) => sendResult(reply, await addAccountSuppressions(deps, callerOf(request).account.id, request.body)));

  app.delete<{ Params: { email: string } }>('/v1/suppressions/:email', {
    schema: {
      summary: 'Remove an address from the list: herald sends to it again', tags,
      params: { type: 'object', required: ['email'], properties: { email: { type: 'string', format: 'email', description: 'URL-encoded; matched without regard to case' } } },
      response: {
        204: { description: 'Removed', type: 'null' },
        400: { description: 'Not an address (`The email address has the wrong structure!`)', ...validationError },
        404: { description: 'The address is not on the list (`Not found`)', ...applicationError },
        ...errors,
      },
    },
    config: { access: { scope: 'email', access: 'write' } },
  }, async (request, reply) => {
    // Removing a suppression lets live email reach the address again: a test key may free only the simulator's (docs/sandbox.md).
    if (sendingMode(request) === 'test' && !isSimulatorRecipient('email', request.params.email)) return refuseLiveThing(reply, SIMULATOR_ONLY);
    const removed = await removeAccountSuppression(deps, callerOf(request).account.id, request.params.email);
    return removed.ok ? reply.code(204).send() : sendRejection(reply, removed.rejection);
  });
}
