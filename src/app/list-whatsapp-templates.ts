import { listWhatsappTemplates, WHATSAPP_TEMPLATE_STATUSES, type WhatsappTemplateStatus } from '../store/whatsapp-templates.ts';
import type { AppDeps } from './deps.ts';

/** The approval states a WhatsApp template can be in (only APPROVED ones can be sent). */
export const WHATSAPP_TEMPLATE_STATUS_VALUES: readonly WhatsappTemplateStatus[] = WHATSAPP_TEMPLATE_STATUSES;

/** One entry of GET /v1/whatsapp/templates; camelCase like the send request's `templateId`. */
export interface WhatsappTemplateView {
  readonly templateId: string;
  readonly name: string;
  readonly language: string;
  readonly body: string;
  readonly status: WhatsappTemplateStatus;
  readonly paramCount: number;
}

/** The account's WhatsApp templates, oldest first, whatever their approval status. */
export async function listWhatsappTemplatesOf(deps: AppDeps, accountId: string): Promise<WhatsappTemplateView[]> {
  const templates = await listWhatsappTemplates(deps.db, accountId);
  return templates.map((t) => ({
    templateId: t.id, name: t.name, language: t.language, body: t.body, status: t.status, paramCount: t.paramCount,
  }));
}
