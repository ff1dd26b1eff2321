import type { FastifyInstance } from 'fastify';
import { accountBodyOf, accountExists, issuedKeyBody, viewAccount, viewLedger } from '../../../app/account-view.ts';
import { addSenderDomainAsOperator } from '../../../app/add-sender-domain.ts';
import { issueApiKey, revokeKey } from '../../../app/api-keys.ts';
import { createAccount } from '../../../app/create-account.ts';
import { createWhatsappTemplate, NewWhatsappTemplateBody } from '../../../app/create-whatsapp-template.ts';
import { getSenderDomain } from '../../../app/sender-domains.ts';
import { updateAccount } from '../../../app/update-account.ts';
import { verifySenderDomain } from '../../../app/verify-sender-domain.ts';
import {
  AccountUpdateBody, NewAccountBody, NewApiKeyBody, NewSenderDomainBody, refineAccountUpdate, refineNewAccount, refineNewApiKey, refineNewSenderDomain,
} from '../../../domain/admin-input.ts';
import { adminAuthHook } from '../../plugins/admin-auth.ts';
import { domainVerification, senderDomain } from '../domains.ts';
import { accountUserRoutes } from './account-users.ts';
import { inboundReportRoutes } from './inbound-reports.ts';
import { unroutedInboundRoutes } from './unrouted-inbound.ts';
import { operatorConsoleRoutes } from './operator-console.ts';
import { operatorWhatsappTemplateRoutes } from './whatsapp-templates.ts';
import { sendRejection, sendResult } from '../../wire-errors.ts';
import { applicationError, ErrorBody } from '../../schemas/errors.ts';
import type { Answer } from '../../schemas/common.ts';
import { AdminAccount, AdminAccountDetails, AdminIssuedKey, AdminLedger, NewAccountAnswer } from '../../schemas/operator-accounts.ts';
import type { RouteDeps } from '../../route-deps.ts';

// The operator API: accounts, their keys, sender domains and WhatsApp templates,
// behind HERALD_ADMIN_TOKEN. Bodies are TypeBox schemas (domain/admin-input.ts), checked
// by Fastify before a handler runs (http/input-validation.ts); a handler gets the body
// typed and refines what a schema cannot say.

const tags = ['admin'];
const security = [{ adminToken: [] }];

const fieldError = ErrorBody;

const errors = {
  401: { description: 'Admin token missing or invalid', ...applicationError },
} as const;
const accountErrors = { ...errors, 404: { description: 'No such account', ...applicationError } } as const;

const accountParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', description: 'Account id' } } } as const;

type AccountParams = { Params: { id: string } };
type DomainParams = { Params: { id: string; domain: string } };
const domainParams = { type: 'object', required: ['id', 'domain'], properties: { id: { type: 'string', description: 'Account id' }, domain: { type: 'string' } } } as const;

export function adminRoutes(app: FastifyInstance, deps: RouteDeps): void {
  app.addHook('onRequest', adminAuthHook(deps, deps.app));
  inboundReportRoutes(app, deps);
  unroutedInboundRoutes(app, deps);
  accountUserRoutes(app, deps);
  operatorConsoleRoutes(app, deps);
  operatorWhatsappTemplateRoutes(app, deps);

  app.post<{ Body: NewAccountBody }>('/admin/v1/accounts', {
    schema: {
      summary: 'Open an account, with a first API key of every scope', tags, security,
      body: NewAccountBody,
      response: {
        201: NewAccountAnswer,
        400: fieldError, ...errors, 409: { description: 'Another account has this name (compared without regard to case)', ...fieldError },
      },
    },
  }, async (request, reply) => {
    const input = refineNewAccount(request.body);
    if (!input.ok) return sendRejection(reply, input.rejection);
    // A taken name throws a RejectionError: the error handler answers it (409).
    const created = await createAccount(deps.app, input.value);
    const { id, apiKey, scopes: keyScopes } = created.apiKey;
    const answer: Answer<NewAccountAnswer> = { account: await accountBodyOf(deps.app, created.account), apiKey: { id, apiKey, scopes: keyScopes } };
    return reply.code(201).send(answer);
  });

  app.get<AccountParams>('/admin/v1/accounts/:id', {
    schema: {
      summary: 'An account, its API keys (without the keys themselves) and its sender domains', tags, security, params: accountParams,
      response: {
        200: AdminAccountDetails,
        ...accountErrors,
      },
    },
  }, async (request, reply) => sendResult<Answer<AdminAccountDetails>>(reply, await viewAccount(deps.app, request.params.id)));

  app.patch<AccountParams & { Body: AccountUpdateBody }>('/admin/v1/accounts/:id', {
    schema: {
      summary: 'Change an account; set or top up its messages and balance through the ledger', tags, security, params: accountParams,
      body: AccountUpdateBody,
      response: { 200: AdminAccount, 400: fieldError, ...accountErrors, 409: { description: 'Another account has this name (compared without regard to case)', ...fieldError } },
    },
  }, async (request, reply) => {
    const input = refineAccountUpdate(request.body);
    if (!input.ok) return sendRejection(reply, input.rejection);
    const updated = await updateAccount(deps.app, request.params.id, input.value);
    if (!updated.ok) return sendRejection(reply, updated.rejection);
    const answer: Answer<AdminAccount> = await accountBodyOf(deps.app, updated.value);
    return reply.code(200).send(answer);
  });

  app.get<AccountParams>('/admin/v1/accounts/:id/ledger', {
    schema: {
      summary: 'Every movement of the account\'s messages and money, oldest first', tags, security, params: accountParams,
      response: {
        200: AdminLedger,
        ...accountErrors,
      },
    },
  }, async (request, reply) => sendResult<Answer<AdminLedger>>(reply, await viewLedger(deps.app, request.params.id)));

  app.post<AccountParams & { Body: NewApiKeyBody }>('/admin/v1/accounts/:id/api-keys', {
    schema: {
      summary: 'Issue an API key; the key is in this response only', tags, security, params: accountParams,
      body: NewApiKeyBody,
      response: { 201: AdminIssuedKey, 400: fieldError, ...accountErrors },
    },
  }, async (request, reply) => {
    const input = refineNewApiKey(request.body, deps.app.clock());
    if (!input.ok) return sendRejection(reply, input.rejection);
    if (!(await accountExists(deps.app, request.params.id))) return sendRejection(reply, { code: 'notFound' });
    const issued = await issueApiKey(deps.app, deps.app.db, request.params.id, input.value);
    const answer: Answer<AdminIssuedKey> = issuedKeyBody(issued);
    return reply.code(201).send(answer);
  });

  app.delete<{ Params: { id: string; keyId: string } }>('/admin/v1/accounts/:id/api-keys/:keyId', {
    schema: {
      summary: 'Revoke an API key; from now on it gets 403 `Invalid API Key `', tags, security,
      params: { type: 'object', required: ['id', 'keyId'], properties: { id: { type: 'string' }, keyId: { type: 'string' } } },
      response: { 204: { type: 'null', description: 'Revoked' }, ...errors, 404: { description: 'No such account, key, or already revoked', ...applicationError } },
    },
  }, async (request, reply) => {
    const revoked = await revokeKey(deps.app, request.params.id, request.params.keyId);
    return revoked ? reply.code(204).send() : sendRejection(reply, { code: 'notFound' });
  });

  // ---- sender domains ----

  app.post<AccountParams & { Body: NewSenderDomainBody }>('/admin/v1/accounts/:id/domains', {
    schema: {
      summary: 'Add a sender domain with a new DKIM key and verification token; email from it is refused until it is verified',
      tags, security, params: accountParams,
      body: NewSenderDomainBody,
      response: {
        201: senderDomain,
        400: fieldError, ...accountErrors, 409: { description: 'The account already has this domain', ...applicationError },
      },
    },
  }, async (request, reply) => {
    const input = refineNewSenderDomain(request.body);
    return sendResult(reply, input.ok ? await addSenderDomainAsOperator(deps.app, request.params.id, input.value) : input, 201);
  });

  app.get<DomainParams>('/admin/v1/accounts/:id/domains/:domain', {
    schema: {
      summary: 'A sender domain of the account, its state and the DNS records to publish', tags, security, params: domainParams,
      response: { 200: senderDomain, ...errors, 404: { description: 'No such account or domain', ...applicationError } },
    },
  }, async (request, reply) => sendResult(reply, await getSenderDomain(deps.app, request.params.id, request.params.domain)));

  app.post<DomainParams>('/admin/v1/accounts/:id/domains/:domain/verify', {
    schema: {
      summary: 'Look the domain\'s records up in DNS and verify it when they match; DNS failures are reported in `checks`',
      tags, security, params: domainParams,
      response: { 200: domainVerification, ...errors, 404: { description: 'No such account or domain', ...applicationError } },
    },
  }, async (request, reply) => sendResult(reply, await verifySenderDomain(deps.app, request.params.id, request.params.domain)));

  app.post<AccountParams & { Body: NewWhatsappTemplateBody }>('/admin/v1/accounts/:id/whatsapp-templates', {
    schema: {
      summary: 'Record a WhatsApp template (approved outside herald unless status says otherwise)', tags, security, params: accountParams,
      body: NewWhatsappTemplateBody,
      response: {
        201: {
          type: 'object', required: ['templateId', 'name', 'language', 'body', 'status', 'paramCount'],
          properties: {
            templateId: { type: 'string', format: 'uuid', description: 'The `templateId` of POST /v1/whatsapp/sendTemplateMessage' },
            name: { type: 'string' }, language: { type: 'string' }, body: { type: 'string' },
            status: { type: 'string', enum: ['APPROVED', 'PENDING', 'REJECTED'] }, paramCount: { type: 'integer' },
          },
        },
        400: fieldError, ...accountErrors,
      },
    },
  }, async (request, reply) => sendResult(reply, await createWhatsappTemplate(deps.app, request.params.id, request.body), 201));
}
