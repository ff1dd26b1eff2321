import { Type, type Static } from '@sinclair/typebox';
import { invalidField, parseText } from '../domain/admin-input.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import { WHATSAPP_TEMPLATE_BODY_MAX, WHATSAPP_TEMPLATE_NAME_MAX } from '../domain/text-limits.ts';
import { validateTemplateBody } from '../domain/whatsapp-request.ts';
import { findAccount } from '../store/accounts.ts';
import { insertWhatsappTemplate, WHATSAPP_TEMPLATE_STATUSES, type WhatsappTemplateStatus } from '../store/whatsapp-templates.ts';
import type { AppDeps } from './deps.ts';
import { whatsappTemplateView, type WhatsappTemplateView } from './list-whatsapp-templates.ts';

// Limits are Meta's own for message templates (domain/text-limits.ts).
export const NAME_MAX = WHATSAPP_TEMPLATE_NAME_MAX;
export const BODY_MAX = WHATSAPP_TEMPLATE_BODY_MAX;
export const DEFAULT_LANGUAGE = 'en_US';

/** POST /admin/v1/accounts/:id/whatsapp-templates (checked by the route, or by the CLI with checkOperatorInput). */
export const NewWhatsappTemplateBody = Type.Object({
  name: Type.String({ maxLength: NAME_MAX, errorMessage: `must be 1 to ${NAME_MAX} characters, without control characters` }),
  // Meta's language codes: `en`, `en_US`, `pt_BR`, `fil`.
  language: Type.Optional(Type.String({ pattern: '^[a-z]{2,3}(_[A-Z]{2})?$', errorMessage: 'must be a language code such as en or en_US', description: `Default ${DEFAULT_LANGUAGE}` })),
  body: Type.String({
    minLength: 1, maxLength: BODY_MAX, pattern: '\\S', errorMessage: `must be a non-empty string of at most ${BODY_MAX} characters`,
    description: 'Placeholders `{{1}}` … `{{n}}`, each index used; else `Incorrect variable syntax`',
  }),
  status: Type.Optional(Type.Union(WHATSAPP_TEMPLATE_STATUSES.map((s) => Type.Literal(s)), {
    errorMessage: `must be one of ${WHATSAPP_TEMPLATE_STATUSES.join(', ')}`, description: 'Default APPROVED; only approved templates can be sent',
  })),
}, { additionalProperties: false });
export type NewWhatsappTemplateBody = Static<typeof NewWhatsappTemplateBody>;

interface TemplateInput {
  readonly name: string;
  readonly language: string;
  readonly body: string;
  readonly status: WhatsappTemplateStatus;
  readonly paramCount: number;
}

/** What the schema cannot say: the name trimmed and free of control characters, the placeholders. */
function refineTemplate(input: NewWhatsappTemplateBody): Result<TemplateInput> {
  const name = parseText(input.name, NAME_MAX);
  if (name === null) return invalidField('name', `must be 1 to ${NAME_MAX} characters, without control characters`);
  const checked = validateTemplateBody(input.body);
  if (!checked.ok) return checked;
  return ok({ name, language: input.language ?? DEFAULT_LANGUAGE, body: input.body, status: input.status ?? 'APPROVED', paramCount: checked.value.paramCount });
}

/**
 * POST /admin/v1/accounts/:id/whatsapp-templates: records a template approved
 * outside herald (Meta's approval flow), or one pending or rejected there.
 */
export async function createWhatsappTemplate(deps: AppDeps, accountId: string, body: NewWhatsappTemplateBody): Promise<Result<WhatsappTemplateView>> {
  const parsed = refineTemplate(body);
  if (!parsed.ok) return parsed;
  if (!(await findAccount(deps.db, accountId))) return reject('notFound');
  const now = deps.clock();
  const template = { id: deps.newId(), accountId, ...parsed.value, createdAt: now, updatedAt: now };
  await insertWhatsappTemplate(deps.db, template);
  return ok(whatsappTemplateView({ ...template, category: 'UTILITY', header: null, footer: null, submission: 'local', metaTemplateId: null, submissionError: null }));
}
