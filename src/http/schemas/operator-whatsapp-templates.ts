// An account's WhatsApp templates as the operator lists them (GET /admin/v1/accounts/:id/whatsapp-templates):
// the fields of the account's own list (GET /v1/whatsapp/templates), camelCase like the rest of the admin API.
import { Type, type Static } from '@sinclair/typebox';
import { WHATSAPP_TEMPLATE_STATUS_VALUES } from '../../app/list-whatsapp-templates.ts';

export const OperatorWhatsappTemplate = Type.Object({
  templateId: Type.String({ format: 'uuid', description: 'The `templateId` of POST /v1/whatsapp/sendTemplateMessage' }),
  name: Type.String(),
  language: Type.String(),
  body: Type.String(),
  status: Type.Union(WHATSAPP_TEMPLATE_STATUS_VALUES.map((s) => Type.Literal(s)), { description: 'Only APPROVED templates can be sent' }),
  paramCount: Type.Integer({ minimum: 0, description: 'How many `params` a send must give' }),
});

export const OperatorWhatsappTemplateList = Type.Object({ templates: Type.Array(OperatorWhatsappTemplate, { description: 'Oldest first, whatever their status' }) });
export type OperatorWhatsappTemplateList = Static<typeof OperatorWhatsappTemplateList>;
