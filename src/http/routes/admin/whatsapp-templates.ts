import type { FastifyInstance } from 'fastify';
import { operatorWhatsappTemplates, removeWhatsappTemplate } from '../../../app/operator-whatsapp-templates.ts';
import { ErrorBody } from '../../schemas/errors.ts';
import { OperatorWhatsappTemplateList } from '../../schemas/operator-whatsapp-templates.ts';
import { sendRejection, sendResult } from '../../wire-errors.ts';
import type { RouteDeps } from '../../route-deps.ts';

// The operator console's view of an account's WhatsApp templates (issue 24): the list,
// and removal. Recording one is POST …/whatsapp-templates in admin-routes.ts.

const tags = ['admin'];
const security = [{ adminToken: [] }];
const unauthorized = { 401: { description: 'Admin token missing or invalid', ...ErrorBody } } as const;

export function operatorWhatsappTemplateRoutes(app: FastifyInstance, { app: deps }: RouteDeps): void {
  app.get<{ Params: { id: string } }>('/admin/v1/accounts/:id/whatsapp-templates', {
    schema: {
      summary: 'The account\'s WhatsApp templates, oldest first, whatever their approval status', tags, security,
      params: { type: 'object', required: ['id'], properties: { id: { type: 'string', description: 'Account id' } } },
      response: { 200: OperatorWhatsappTemplateList, ...unauthorized, 404: { description: 'No such account', ...ErrorBody } },
    },
  }, async (request, reply) => sendResult(reply, await operatorWhatsappTemplates(deps, request.params.id)));

  app.delete<{ Params: { id: string; templateId: string } }>('/admin/v1/accounts/:id/whatsapp-templates/:templateId', {
    schema: {
      summary: 'Remove a WhatsApp template from herald (sends naming it are refused from now on; messages already sent keep their text)', tags, security,
      params: { type: 'object', required: ['id', 'templateId'], properties: { id: { type: 'string', description: 'Account id' }, templateId: { type: 'string' } } },
      response: { 204: { type: 'null', description: 'Removed' }, ...unauthorized, 404: { description: 'No such account or template', ...ErrorBody } },
    },
  }, async (request, reply) => {
    const removed = await removeWhatsappTemplate(deps, request.params.id, request.params.templateId);
    return removed ? reply.code(204).send() : sendRejection(reply, { code: 'notFound' });
  });
}
