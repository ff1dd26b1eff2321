import type { FastifyInstance } from 'fastify';
import { addOwnSenderDomain } from '../../app/add-sender-domain.ts';
import { getSenderDomain, listSenderDomainsOf, removeSenderDomain } from '../../app/sender-domains.ts';
import { verifySenderDomain } from '../../app/verify-sender-domain.ts';
import { callerOf } from '../route-access.ts';
import { sendResult } from '../wire-errors.ts';
import { applicationError, authenticationError, rateLimitError } from '../schemas/errors.ts';
import type { RouteDeps } from '../route-deps.ts';

// The account's sender domains (scope `email`): add one, read the DNS records to
// publish for it, and ask herald to verify them. Email from a domain is refused
// until it is verified. Schemas document the wire only.

export const domainRecord = {
  type: 'object', required: ['type', 'name', 'value', 'purpose'],
  properties: {
    type: { type: 'string', enum: ['TXT', 'MX', 'A', 'AAAA'] },
    name: { type: 'string' },
    value: { type: 'string', description: 'The whole value; split a TXT value over 255 characters into several strings if your DNS host does not' },
    purpose: {
      type: 'string', enum: ['verification', 'dkim', 'spf', 'dmarc', 'bounces'],
      description: '`verification` and `dkim` must be published for the domain to verify; `spf` and `dmarc` are advisory; '
        + '`bounces` is the bounce domain\'s MX (and its A or AAAA record when herald\'s public URL is an IP address), published once by the operator of this herald',
    },
  },
} as const;

export const domainNote = {
  type: 'object', required: ['code', 'address', 'text'],
  properties: {
    code: { type: 'string', enum: ['bounce-domain-is-ip', 'mail-host-is-ip'] },
    address: { type: 'string', description: 'The IP address in question' },
    text: { type: 'string', description: 'What could not be suggested and what to do instead' },
  },
} as const;

export const senderDomain = {
  type: 'object', required: ['domain', 'verified', 'verifiedAt', 'records', 'notes'],
  properties: {
    domain: { type: 'string', description: 'Lower-case host name' },
    verified: { type: 'boolean', description: 'false: email from this domain is refused with `Domain not permitted. err 2`' },
    verifiedAt: { type: ['string', 'null'], format: 'date-time' },
    records: { type: 'array', items: domainRecord },
    notes: { type: 'array', items: domainNote, description: 'Empty unless herald\'s public URL or bounce domain is an IP address, which SPF names with ip4:/ip6: and an MX cannot name' },
  },
} as const;

export const domainVerification = {
  ...senderDomain,
  required: [...senderDomain.required, 'checks'],
  properties: {
    ...senderDomain.properties,
    checks: {
      type: 'array',
      description: 'The `_herald` token record, the DKIM key record, then SPF and DMARC; the domain verifies when the first two are `ok` '
        + '(SPF and DMARC are advisory). Once verified it stays verified.',
      items: {
        type: 'object', required: ['record', 'purpose', 'found', 'ok'],
        properties: {
          record: { type: 'string', description: 'The DNS name looked up' },
          purpose: { type: 'string', enum: ['verification', 'dkim', 'spf', 'dmarc'] },
          found: { type: 'boolean', description: 'A TXT record exists at the name' },
          ok: { type: 'boolean', description: 'It carries the expected token or key; for SPF, one `v=spf1` record naming herald\'s mechanism; for DMARC, one `v=DMARC1` record' },
          value: { type: 'string', description: 'SPF and DMARC: the record(s) found, joined by ` | `' },
          error: { type: 'string', description: 'The look-up failed (time-out, SERVFAIL …); try again later' },
        },
      },
    },
  },
} as const;

const params = { type: 'object', required: ['domain'], properties: { domain: { type: 'string' } } } as const;

const errors = {
  401: { description: 'The key lacks the scope (`API key not authorized.`)', ...applicationError },
  403: { description: 'Authentication failed', ...authenticationError },
  429: { description: 'Request rate above the account\'s limit', ...rateLimitError },
} as const;
const inUse = { 409: { description: 'A scheduled, running or paused campaign sends from the domain (`The domain is used by a scheduled or running campaign`, with `detail` naming them)', ...applicationError } } as const;
const notFound = { 404: { description: 'The account has no such domain (`Not found`)', ...applicationError } } as const;

const tags = ['domains'];

type DomainParams = { Params: { domain: string } };

export function domainRoutes(app: FastifyInstance, { app: deps }: RouteDeps): void {

  app.get('/v1/domains', {
    schema: {
      summary: 'The account\'s sender domains with their DNS records, by name', tags,
      response: { 200: { type: 'object', required: ['domains'], properties: { domains: { type: 'array', items: senderDomain } } }, ...errors },
    },
    config: { access: { scope: 'email', access: 'read' } },
  }, async (request) => listSenderDomainsOf(deps, callerOf(request).account.id));

  app.post('/v1/domains', {
    schema: {
      summary: 'Add a sender domain: herald makes its DKIM key and verification token; publish the records, then verify',
      tags,
      body: { type: 'object', required: ['domain'], properties: { domain: { type: 'string', description: 'Host name with a dot; stored lower-cased' } } },
      response: {
        201: senderDomain,
        400: { description: '`Invalid request, a field has the wrong type or value` with `detail`', ...applicationError },
        409: { description: 'The account already has this domain (`Already exists`)', ...applicationError },
        ...errors,
      },
    },
    config: { access: { scope: 'email', access: 'write' } },
  }, async (request, reply) => sendResult(reply, await addOwnSenderDomain(deps, callerOf(request).account.id, request.body), 201));

  app.get<DomainParams>('/v1/domains/:domain', {
    schema: {
      summary: 'A sender domain, its state and the DNS records to publish', tags, params,
      response: { 200: senderDomain, ...notFound, ...errors },
    },
    config: { access: { scope: 'email', access: 'read' } },
  }, async (request, reply) => sendResult(reply, await getSenderDomain(deps, callerOf(request).account.id, request.params.domain), 200));

  app.post<DomainParams>('/v1/domains/:domain/verify', {
    schema: {
      summary: 'Look the domain\'s records up in DNS and verify it when they match; DNS failures are reported in `checks`',
      tags, params,
      response: { 200: domainVerification, ...notFound, ...errors },
    },
    config: { access: { scope: 'email', access: 'write' } },
  }, async (request, reply) => sendResult(reply, await verifySenderDomain(deps, callerOf(request).account.id, request.params.domain), 200));

  app.delete<DomainParams>('/v1/domains/:domain', {
    schema: {
      summary: 'Delete a sender domain and its DKIM key; refused while a scheduled, running or paused campaign sends from it', tags, params,
      response: { 204: { description: 'Deleted', type: 'null' }, ...notFound, ...inUse, ...errors },
    },
    config: { access: { scope: 'email', access: 'write' } },
  }, async (request, reply) => sendResult(reply, await removeSenderDomain(deps, callerOf(request).account.id, request.params.domain), 204));
}
