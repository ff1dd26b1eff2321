import { reject, ok, type Result } from '../domain/result.ts';
import { findAccount } from '../store/accounts.ts';
import { deleteWhatsappTemplate } from '../store/whatsapp-templates.ts';
import type { AppDeps } from './deps.ts';
import { listWhatsappTemplatesOf, type WhatsappTemplateView } from './list-whatsapp-templates.ts';

// The operator's view of an account's WhatsApp templates (GET and DELETE
// /admin/v1/accounts/:id/whatsapp-templates…): the list is the account's own
// (GET /v1/whatsapp/templates); removing one only forgets it in herald: a message already
// sent from it keeps its text, and Meta's copy, if any, is left as it is.

export async function operatorWhatsappTemplates(deps: AppDeps, accountId: string): Promise<Result<{ templates: WhatsappTemplateView[] }>> {
  if (!(await findAccount(deps.db, accountId))) return reject('notFound');
  return ok({ templates: await listWhatsappTemplatesOf(deps, accountId) });
}

export async function removeWhatsappTemplate(deps: AppDeps, accountId: string, templateId: string): Promise<boolean> {
  return deleteWhatsappTemplate(deps.db, accountId, templateId);
}
