import { invalidField } from '../domain/admin-input.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import { validateTemplateBody } from '../domain/whatsapp-request.ts';
import { findWhatsappBusiness } from '../store/accounts.ts';
import { countWhatsappTemplates, insertWhatsappTemplate, whatsappTemplateExists, type WhatsappTemplateCategory } from '../store/whatsapp-templates.ts';
import { DEFAULT_LANGUAGE } from './create-whatsapp-template.ts';
import type { AppDeps } from './deps.ts';
import { whatsappTemplateView, type WhatsappTemplateView } from './list-whatsapp-templates.ts';

/** Most templates one account keeps (Meta's own ceiling for a business is in the thousands). */
export const WHATSAPP_TEMPLATES_MAX = 1000;

export interface NewTemplateInput {
  readonly name: string;
  readonly language?: string;
  readonly category: WhatsappTemplateCategory;
  readonly body: string;
  readonly header?: string;
  readonly footer?: string;
}

/** A header or footer: trimmed, null when empty; placeholders are not offered there. */
function plainText(field: string, value: string | undefined): Result<string | null> {
  const text = value?.trim() ?? '';
  if (text.includes('{{') || text.includes('}}')) return invalidField(field, 'must not hold placeholders');
  return ok(text === '' ? null : text);
}

/**
 * POST /v1/whatsapp/templates: the account's own template, PENDING until Meta approves it.
 * With a WhatsApp Business account id and token set it is queued for submission
 * (app/submit-whatsapp-templates.ts); without, it is kept in herald only (`local`).
 */
export async function createAccountWhatsappTemplate(deps: AppDeps, accountId: string, input: NewTemplateInput): Promise<Result<WhatsappTemplateView>> {
  const checked = validateTemplateBody(input.body);
  if (!checked.ok) return checked;
  const header = plainText('header', input.header);
  if (!header.ok) return header;
  const footer = plainText('footer', input.footer);
  if (!footer.ok) return footer;
  const language = input.language ?? DEFAULT_LANGUAGE;
  if (await whatsappTemplateExists(deps.db, accountId, input.name, language)) {
    return invalidField('name', `the account already has a template ${input.name} in ${language}`);
  }
  if (await countWhatsappTemplates(deps.db, accountId) >= WHATSAPP_TEMPLATES_MAX) {
    return reject('quotaExceeded', { detail: `at most ${WHATSAPP_TEMPLATES_MAX} WhatsApp templates` });
  }
  const submits = (await findWhatsappBusiness(deps.db, accountId)) !== undefined;
  const now = deps.clock();
  const template = {
    id: deps.newId(), accountId, name: input.name, language, body: input.body, paramCount: checked.value.paramCount,
    status: 'PENDING', category: input.category, header: header.value, footer: footer.value,
    submission: submits ? 'queued' : 'local', metaTemplateId: null, submissionError: null, createdAt: now, updatedAt: now,
  } as const;
  await insertWhatsappTemplate(deps.db, template);
  return ok(whatsappTemplateView(template));
}
