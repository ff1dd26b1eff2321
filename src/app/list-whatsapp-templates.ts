import {
  listWhatsappTemplates, WHATSAPP_TEMPLATE_STATUSES, WHATSAPP_TEMPLATE_CATEGORIES, WHATSAPP_TEMPLATE_SUBMISSIONS, type WhatsappTemplate, type WhatsappTemplateCategory,
  type WhatsappTemplateStatus, type WhatsappTemplateSubmission,
} from '../store/whatsapp-templates.ts';
import type { AppDeps } from './deps.ts';

export { WHATSAPP_TEMPLATE_CATEGORIES, WHATSAPP_TEMPLATE_STATUSES, WHATSAPP_TEMPLATE_SUBMISSIONS };

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
  readonly category: WhatsappTemplateCategory;
  readonly header: string | null;
  readonly footer: string | null;
  /** How far its submission to Meta went (store/whatsapp-templates.ts). */
  readonly submission: WhatsappTemplateSubmission;
  /** Why Meta refused it, or why the last try failed; null otherwise. */
  readonly submissionError: string | null;
}

export const whatsappTemplateView = (t: Required<WhatsappTemplate>): WhatsappTemplateView => ({
  templateId: t.id, name: t.name, language: t.language, body: t.body, status: t.status, paramCount: t.paramCount,
  category: t.category, header: t.header, footer: t.footer, submission: t.submission, submissionError: t.submissionError,
});

/** The account's WhatsApp templates, oldest first, whatever their approval status. */
export async function listWhatsappTemplatesOf(deps: AppDeps, accountId: string): Promise<WhatsappTemplateView[]> {
  return (await listWhatsappTemplates(deps.db, accountId)).map(whatsappTemplateView);
}
