import type { FastifyInstance } from 'fastify';
import {
  addReceivingDomain, getReceivingDomain, listReceivingDomainsOf, removeReceivingDomain, setReceivingDomainRules, verifyReceivingDomain,
} from '../../app/receiving-domains.ts';
import { callerOf } from '../route-access.ts';
import { sendRejection, sendResult } from '../wire-errors.ts';
import { applicationError, authenticationError, rateLimitError } from '../schemas/errors.ts';
import {
  NewReceivingDomainBody, ReceivingDomain, ReceivingDomainList, ReceivingDomainVerification, ReceivingRulesBody,
} from '../schemas/receiving-domains.ts';
import type { RouteDeps } from '../route-deps.ts';

// The account's receiving domains (scope `email`, as its sender domains): mail to any
// address at a verified one is taken by herald's inbound listener and posted as
// `email.received`, forwarded or refused by the domain's rules (docs/inbound-email.md).

const errors = {
  401: { description: 'The key lacks the scope (`API key not authorized.`)', ...applicationError },
  403: { description: 'Authentication failed', ...authenticationError },
  429: { description: 'Request rate above the account\'s limit', ...rateLimitError },
} as const;
const badField = { 400: { description: '`Invalid request, a field has the wrong type or value` with `detail`', ...applicationError } } as const;
const notFound = { 404: { description: 'The account has no such receiving domain (`Not found`)', ...applicationError } } as const;

const tags = ['receiving domains'];
const params = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } as const;
type IdParams = { Params: { id: string } };

export function receivingDomainRoutes(app: FastifyInstance, { app: deps }: RouteDeps): void {

  app.get('/v1/receiving-domains', {
    schema: { summary: 'The account\'s receiving domains, by name', tags, response: { 200: ReceivingDomainList, ...errors } },
    config: { access: { scope: 'email', access: 'read' } },
  }, async (request) => listReceivingDomainsOf(deps, callerOf(request).account.id));

  app.post<{ Body: NewReceivingDomainBody }>('/v1/receiving-domains', {
    schema: {
      summary: 'Add a receiving domain: publish its MX record, then verify it', tags, body: NewReceivingDomainBody,
      response: {
        201: ReceivingDomain, ...badField,
        409: { description: 'The domain is a receiving domain already, of this account or another (`Already exists`)', ...applicationError },
        ...errors,
      },
    },
    config: { access: { scope: 'email', access: 'write' } },
  }, async (request, reply) => sendResult(reply, await addReceivingDomain(deps, callerOf(request).account.id, request.body), 201));

  app.get<IdParams>('/v1/receiving-domains/:id', {
    schema: { summary: 'A receiving domain, its state, its MX record and its rules', tags, params, response: { 200: ReceivingDomain, ...notFound, ...errors } },
    config: { access: { scope: 'email', access: 'read' } },
  }, async (request, reply) => sendResult(reply, await getReceivingDomain(deps, callerOf(request).account.id, request.params.id)));

  app.post<IdParams>('/v1/receiving-domains/:id/verify', {
    schema: {
      summary: 'Look the domain\'s MX up in DNS and verify it when it names herald\'s mail host; DNS failures are reported in `checks`',
      tags, params, response: { 200: ReceivingDomainVerification, ...notFound, ...errors },
    },
    config: { access: { scope: 'email', access: 'write' } },
  }, async (request, reply) => sendResult(reply, await verifyReceivingDomain(deps, callerOf(request).account.id, request.params.id)));

  app.put<IdParams & { Body: ReceivingRulesBody }>('/v1/receiving-domains/:id/rules', {
    schema: {
      summary: 'Replace the domain\'s rules: per address, post it (`webhook`, the default), forward it, or refuse it',
      tags, params, body: ReceivingRulesBody, response: { 200: ReceivingDomain, ...badField, ...notFound, ...errors },
    },
    config: { access: { scope: 'email', access: 'write' } },
  }, async (request, reply) => sendResult(reply, await setReceivingDomainRules(deps, callerOf(request).account.id, request.params.id, request.body.rules)));

  app.delete<IdParams>('/v1/receiving-domains/:id', {
    schema: {
      summary: 'Remove a receiving domain: mail to it is refused from now on', tags, params,
      response: { 204: { description: 'Removed', type: 'null' }, ...notFound, ...errors },
    },
    config: { access: { scope: 'email', access: 'write' } },
  }, async (request, reply) => {
    const removed = await removeReceivingDomain(deps, callerOf(request).account.id, request.params.id);
    return removed.ok ? reply.code(204).send() : sendRejection(reply, removed.rejection);
  });
}
