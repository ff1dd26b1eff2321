import { fieldsOf, invalidField, parseText } from '../domain/admin-input.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import { validateTemplateBody } from '../domain/whatsapp-request.ts';
import { findAccount } from '../store/accounts.ts';
import { insertWhatsappTemplate, WHATSAPP_TEMPLATE_STATUSES, type WhatsappTemplateStatus } from '../store/whatsapp-templates.ts';
import type { AppDeps } from './deps.ts';
import type { WhatsappTemplateView } from './list-whatsapp-templates.ts';

// Limits are Meta's own for message templates, so a template stored here can also
// be submitted to the Cloud API unchanged.
const NAME_MAX = 512;
const BODY_MAX = 1024;
// Meta's language codes: `en`, `en_US`, `pt_BR`, `fil`.
const LANGUAGE = /^[a-z]{2,3}(_[A-Z]{2})?$/;
const DEFAULT_LANGUAGE = 'en_US';

interface TemplateInput {
  readonly name: string;
  readonly language: string;
  readonly body: string;
  readonly status: WhatsappTemplateStatus;
  readonly paramCount: number;
}

function parseTemplateInput(input: unknown): Result<TemplateInput> {
  const fields = fieldsOf(input, ['name', 'language', 'body', 'status']);
  if (!fields.ok) return fields;
  const { name, language = DEFAULT_LANGUAGE, body, status = 'APPROVED' } = fields.value;

  if (name === undefined) return invalidField('name', 'is required');
  const parsedName = parseText(name, NAME_MAX);
  if (parsedName === null) return invalidField('name', `must be 1 to ${NAME_MAX} characters, without control characters`);
  if (typeof language !== 'string' || !LANGUAGE.test(language)) return invalidField('language', 'must be a language code such as en or en_US');
  if (body === undefined) return invalidField('body', 'is required');
  if (typeof body !== 'string' || body.trim() === '' || body.length > BODY_MAX) {
    return invalidField('body', `must be a non-empty string of at most ${BODY_MAX} characters`);
  }
  if (!(WHATSAPP_TEMPLATE_STATUSES as readonly unknown[]).includes(status)) {
    return invalidField('status', `must be one of ${WHATSAPP_TEMPLATE_STATUSES.join(', ')}`);
  }
  const checked = validateTemplateBody(body);
  if (!checked.ok) return checked;
  return ok({ name: parsedName, language, body, status: status as WhatsappTemplateStatus, paramCount: checked.value.paramCount });
}

/**
 * POST /admin/v1/accounts/:id/whatsapp-templates: records a template approved
 * outside herald (Meta's approval flow), or one pending or rejected there.
 */
export async function createWhatsappTemplate(deps: AppDeps, accountId: string, body: unknown): Promise<Result<WhatsappTemplateView>> {
  const parsed = parseTemplateInput(body);
  if (!parsed.ok) return parsed;
  if (!(await findAccount(deps.db, accountId))) return reject('notFound');
  const now = deps.clock();
  const template = { id: deps.newId(), accountId, ...parsed.value, createdAt: now, updatedAt: now };
  await insertWhatsappTemplate(deps.db, template);
  const { id, name, language, status, paramCount } = template;
  return ok({ templateId: id, name, language, body: template.body, status, paramCount });
}
