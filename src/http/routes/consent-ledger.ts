import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { changeConsent, consentAddress, exportLedger, getConsent } from '../../app/consent-ledger.ts';
import { callerOf, visibleChannels } from '../route-access.ts';
import { applicationError } from '../schemas/errors.ts';
import { consentChangeBody, consentView, ledgerEntry } from '../schemas/consent-ledger.ts';
import { sendRejection, sendResult } from '../wire-errors.ts';
import { reject } from '../../domain/result.ts';
import type { RouteDeps } from '../route-deps.ts';

// The consent ledger: a person's state and history on every channel, its exports, and
// changes by the account. Consent spans channels, so any channel scope reads it; a
// change needs the scope of the channel it is about.

const tags = ['consent'];
const AddressQuery = Type.Object({ address: Type.String({ minLength: 1, maxLength: 320, description: 'An email address, or a number in `+` and digits' }) });
const ExportQuery = Type.Object({
  format: Type.Optional(Type.Union([Type.Literal('csv'), Type.Literal('json')], { default: 'csv', errorMessage: 'must be csv or json' })),
  address: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
});

export function consentLedgerRoutes(app: FastifyInstance, { app: deps }: RouteDeps): void {
  app.get<{ Querystring: Static<typeof AddressQuery> }>('/v1/consent', {
    schema: {
      summary: 'A person\'s consent on every channel, the email suppression apart, and the history of changes with their proof', tags,
      querystring: AddressQuery, response: { 200: consentView, 400: applicationError },
    },
    config: { access: { scope: 'channel', access: 'read' } },
  }, async (request, reply) => sendResult(reply, await getConsent(deps, callerOf(request).account.id, request.query.address)));

  app.get<{ Querystring: Static<typeof ExportQuery> }>('/v1/consent/export', {
    schema: {
      summary: 'The consent ledger, newest first: CSV (`id,at,channel,address,sender,change,source,keyword,proof`, RFC 4180, CRLF, formula cells neutralised) or a JSON array of entries', tags,
      querystring: ExportQuery,
      response: {
        200: { description: 'consent.csv or consent.json, as an attachment', content: { 'text/csv': { schema: { type: 'string' } }, 'application/json': { schema: { type: 'array', items: ledgerEntry } } } },
        400: applicationError,
      },
    },
    config: { access: { scope: 'channel', access: 'read' } },
  }, async (request, reply) => {
    const format = request.query.format ?? 'csv';
    let address: string | undefined;
    if (request.query.address !== undefined) {
      const checked = consentAddress(request.query.address);
      if (!checked.ok) return sendRejection(reply, checked.rejection);
      address = checked.value;
    }
    return reply
      .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8')
      .header('content-disposition', `attachment; filename="consent.${format}"`)
      .send(Readable.from(exportLedger(deps, callerOf(request).account.id, format, address)));
  });

  app.post<{ Body: Static<typeof consentChangeBody> }>('/v1/consent', {
    schema: {
      summary: 'Records a change of a person\'s consent made by the account (an opt-out taken by phone, a form…), with the request as its proof', tags,
      body: consentChangeBody, response: { 201: ledgerEntry, 400: applicationError, 401: applicationError },
    },
    config: { access: { scope: 'channel', access: 'write' } },
  }, async (request, reply) => {
    const caller = callerOf(request);
    if (!visibleChannels(request).includes(request.body.channel)) return sendRejection(reply, reject('keyNotAuthorized').rejection);
    const result = await changeConsent(deps, caller.account.id, request.body, {
      source: caller.principal.kind === 'user' ? 'web' : 'api', requestId: String(request.id), ip: request.ip, userAgent: request.headers['user-agent'] ?? null,
    });
    return sendResult(reply, result, 201);
  });
}
