import type { FastifyInstance } from 'fastify';
import {
  createEmailTemplate, getEmailTemplate, listEmailTemplatesOf, removeEmailTemplate, replaceEmailTemplate, TEMPLATE_NAME_MAX,
} from '../../app/email-templates.ts';
import { renderEmailTemplate } from '../../app/render-email-template.ts';
import { RenderedEmail, RenderRequest } from '../schemas/templates.ts';
import { Type } from '@sinclair/typebox';
import { createAccountWhatsappTemplate } from '../../app/create-account-whatsapp-template.ts';
import { listWhatsappTemplatesOf } from '../../app/list-whatsapp-templates.ts';
import { NewAccountWhatsappTemplate, WhatsappTemplateSchema } from '../schemas/whatsapp-templates.ts';
import { callerOf } from '../route-access.ts';
import { sendRejection, sendResult } from '../wire-errors.ts';
import { applicationError, authenticationError, rateLimitError } from '../schemas/errors.ts';
import type { RouteDeps } from '../route-deps.ts';

// The account's templates: email templates are managed here (scope `email`), WhatsApp
// templates are listed and created (scope `whatsapp`; Meta approves them).
// Schemas document the wire only; the use cases validate with herald's texts.

const timestamp = { type: 'string', format: 'date-time', description: 'UTC, ISO-8601' } as const;
const templateId = { type: 'string', format: 'uuid', description: 'UUIDv7; the `template_id` of POST /v1/email' } as const;
const nullableText = (description: string) => ({ type: ['string', 'null'], description }) as const;

const templateSummary = {
  type: 'object', required: ['template_id', 'name', 'subject', 'created_at', 'updated_at'],
  properties: {
    template_id: templateId,
    name: { type: 'string' },
    subject: nullableText('Stored with the template; the send request\'s own `subject` is the one used'),
    created_at: timestamp,
    updated_at: timestamp,
  },
} as const;

const templateView = {
  type: 'object', required: ['template_id', 'name', 'subject', 'html', 'text', 'created_at', 'updated_at'],
  properties: {
    ...templateSummary.properties,
    html: { type: 'string' },
    text: nullableText('Plain-text part; when null one is generated from the HTML at send time'),
  },
} as const;

const templateBody = {
  type: 'object', required: ['name', 'html'],
  description: 'Placeholders: `{{name}}`, `{{contact.name}}` (a dotted path is one variable named with its dots), `{{#if name}}…{{else}}…{{/if}}`, '
    + '`{{#unless name}}…{{/unless}}`, `{{! comment }}`; anything else is rejected with `Incorrect variable syntax` and a `detail` naming the part, '
    + 'line, column and tag. Values are HTML-escaped in `html`, inserted as is in `text` and `subject`.',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: TEMPLATE_NAME_MAX },
    subject: nullableText('Optional; an empty string is stored as null'),
    html: { type: 'string', minLength: 1 },
    text: nullableText('Optional; an empty string is stored as null'),
  },
} as const;

const params = { type: 'object', required: ['template_id'], properties: { template_id: { type: 'string' } } } as const;

const fieldError = {
  type: 'object', required: ['message'],
  properties: { message: { type: 'string' }, detail: { type: 'string', description: 'Which field, and what is wrong with it' } },
} as const;

// The errors every route here can give: authentication, scope, rate, internal failure.
const errors = {
  401: { description: 'The key lacks the scope (`API key not authorized.`)', ...applicationError },
  403: { description: 'Authentication failed', ...authenticationError },
  429: { description: 'Request rate above the account\'s limit', ...rateLimitError },
  500: { description: 'Internal failure', anyOf: [applicationError, authenticationError] },
} as const;
const invalid = {
  400: { description: '`Invalid request, a field has the wrong type or value` or `Incorrect variable syntax`, each with `detail` (`html: line 3, column 12: {{#if}} is never closed`)', ...fieldError },
} as const;
const notFound = { 404: { description: 'No such template in this account (`Not found`)', ...applicationError } } as const;

const tags = ['templates'];

export function templateRoutes(app: FastifyInstance, { app: deps }: RouteDeps): void {

  app.get('/v1/email/templates', {
    schema: {
      summary: 'List the account\'s email templates, oldest first', tags,
      response: { 200: { type: 'object', required: ['templates'], properties: { templates: { type: 'array', items: templateSummary } } }, ...errors },
    },
    config: { access: { scope: 'email', access: 'read' } },
  }, async (request) => ({ templates: await listEmailTemplatesOf(deps, callerOf(request).account.id) }));

  app.post('/v1/email/templates', {
    schema: {
      summary: 'Store an email template', tags, body: templateBody,
      response: { 201: templateView, ...invalid, ...errors },
    },
    config: { access: { scope: 'email', access: 'write' } },
  }, async (request, reply) => {
    const result = await createEmailTemplate(deps, callerOf(request).account.id, request.body);
    if (!result.ok) return sendRejection(reply, result.rejection);
    return reply.code(201).send(result.value);
  });

  app.post<{ Body: RenderRequest }>('/v1/email/templates/render', {
    schema: {
      summary: 'Render a template as POST /v1/email would send it (subject, HTML, and the text part, generated from the HTML when there is none); '
        + 'a stored template_id with html or text given renders the edit before it is saved. Nothing is stored or sent',
      tags, body: RenderRequest, response: { 200: RenderedEmail, ...invalid, ...notFound, ...errors },
    },
    config: { access: { scope: 'email', access: 'read' } },
  }, async (request, reply) => sendResult(reply, await renderEmailTemplate(deps, callerOf(request).account.id, request.body)));

  app.get<{ Params: { template_id: string } }>('/v1/email/templates/:template_id', {
    schema: {
      summary: 'One email template, with its HTML and text', tags, params,
      response: { 200: templateView, ...notFound, ...errors },
    },
    config: { access: { scope: 'email', access: 'read' } },
  }, async (request, reply) => {
    const result = await getEmailTemplate(deps, callerOf(request).account.id, request.params.template_id);
    if (!result.ok) return sendRejection(reply, result.rejection);
    return reply.code(200).send(result.value);
  });

  app.put<{ Params: { template_id: string } }>('/v1/email/templates/:template_id', {
    schema: {
      summary: 'Replace an email template (every field; an omitted subject or text becomes null)', tags,
      params, body: templateBody,
      response: { 200: templateView, ...invalid, ...notFound, ...errors },
    },
    config: { access: { scope: 'email', access: 'write' } },
  }, async (request, reply) => {
    const result = await replaceEmailTemplate(deps, callerOf(request).account.id, request.params.template_id, request.body);
    if (!result.ok) return sendRejection(reply, result.rejection);
    return reply.code(200).send(result.value);
  });

  app.delete<{ Params: { template_id: string } }>('/v1/email/templates/:template_id', {
    schema: {
      summary: 'Delete an email template, unless a scheduled, running or paused campaign uses it', tags, params,
      response: {
        204: { description: 'Deleted', type: 'null' }, ...notFound,
        409: { description: 'A scheduled, running or paused campaign uses the template (`The template is used by a campaign that has not finished`, with `detail` naming them)', ...fieldError },
        ...errors,
      },
    },
    config: { access: { scope: 'email', access: 'write' } },
  }, async (request, reply) => {
    const result = await removeEmailTemplate(deps, callerOf(request).account.id, request.params.template_id);
    if (!result.ok) return sendRejection(reply, result.rejection);
    return reply.code(204).send();
  });

  app.get('/v1/whatsapp/templates', {
    schema: {
      summary: 'List the account\'s WhatsApp templates, oldest first', tags,
      response: { 200: Type.Object({ templates: Type.Array(WhatsappTemplateSchema) }), ...errors },
    },
    config: { access: { scope: 'whatsapp', access: 'read' } },
  }, async (request) => ({ templates: await listWhatsappTemplatesOf(deps, callerOf(request).account.id) }));

  app.post<{ Body: NewAccountWhatsappTemplate }>('/v1/whatsapp/templates', {
    schema: {
      summary: 'Create a WhatsApp template, PENDING: submitted to Meta for approval when the account has a WhatsApp Business account id and token, else kept in herald (docs/whatsapp-templates.md)',
      tags, body: NewAccountWhatsappTemplate,
      response: {
        201: WhatsappTemplateSchema, ...invalid, ...errors,
        403: { description: 'Authentication failed, or `Account quota exceeded` (with `detail`)', anyOf: [authenticationError, applicationError] },
      },
    },
    config: { access: { scope: 'whatsapp', access: 'write' } },
  }, async (request, reply) => sendResult(reply, await createAccountWhatsappTemplate(deps, callerOf(request).account.id, request.body), 201));
}
