// The account's WhatsApp templates (GET and POST /v1/whatsapp/templates).
import { Type, type Static } from '@sinclair/typebox';
import { BODY_MAX, DEFAULT_LANGUAGE } from '../../app/create-whatsapp-template.ts';
import { WHATSAPP_TEMPLATE_CATEGORIES, WHATSAPP_TEMPLATE_STATUSES, WHATSAPP_TEMPLATE_SUBMISSIONS } from '../../app/list-whatsapp-templates.ts';
import { Nullable } from './common.ts';

/** Meta's limit on a header's and a footer's text. */
export const HEADER_FOOTER_MAX = 60;

/** POST /v1/whatsapp/templates: Meta's own rules, so the template can be submitted unchanged. */
export const NewAccountWhatsappTemplate = Type.Object({
  name: Type.String({
    pattern: '^[a-z0-9_]{1,512}$', errorMessage: 'must be 1 to 512 lowercase letters, digits and underscores',
    description: 'Meta\'s rule: lowercase letters, digits and underscores; unique with its language in the account',
  }),
  language: Type.Optional(Type.String({ pattern: '^[a-z]{2,3}(_[A-Z]{2})?$', errorMessage: 'must be a language code such as en or en_US', description: `Default ${DEFAULT_LANGUAGE}` })),
  category: Type.Union(WHATSAPP_TEMPLATE_CATEGORIES.map((c) => Type.Literal(c)), { errorMessage: `must be one of ${WHATSAPP_TEMPLATE_CATEGORIES.join(', ')}` }),
  body: Type.String({
    minLength: 1, maxLength: BODY_MAX, pattern: '\\S', errorMessage: `must be a non-empty string of at most ${BODY_MAX} characters`,
    description: 'Placeholders `{{1}}` … `{{n}}`, each index used; else `Incorrect variable syntax`',
  }),
  header: Type.Optional(Type.String({ maxLength: HEADER_FOOTER_MAX, errorMessage: `must be a string of at most ${HEADER_FOOTER_MAX} characters`, description: 'Text shown above the body, without placeholders' })),
  footer: Type.Optional(Type.String({ maxLength: HEADER_FOOTER_MAX, errorMessage: `must be a string of at most ${HEADER_FOOTER_MAX} characters`, description: 'Text shown below the body, without placeholders' })),
}, { additionalProperties: false });
export type NewAccountWhatsappTemplate = Static<typeof NewAccountWhatsappTemplate>;

export const WhatsappTemplateSchema = Type.Object({
  templateId: Type.String({ format: 'uuid', description: 'The `templateId` of POST /v1/whatsapp/sendTemplateMessage' }),
  name: Type.String(),
  language: Type.String(),
  body: Type.String(),
  status: Type.Union(WHATSAPP_TEMPLATE_STATUSES.map((s) => Type.Literal(s)), { description: 'Only APPROVED templates can be sent' }),
  paramCount: Type.Integer({ minimum: 0, description: 'How many `params` a send must give' }),
  category: Type.Union(WHATSAPP_TEMPLATE_CATEGORIES.map((c) => Type.Literal(c))),
  header: Nullable(Type.String()),
  footer: Nullable(Type.String()),
  submission: Type.Union(WHATSAPP_TEMPLATE_SUBMISSIONS.map((s) => Type.Literal(s)), {
    description: '`local`: kept in herald only (no WhatsApp Business account configured, or recorded by the operator); `queued`, `submitting`: on its way to Meta; `submitted`: Meta took it; `refused`: Meta refused it (submissionError says why)',
  }),
  submissionError: Nullable(Type.String({ description: 'Meta\'s reason for a refusal, or why the last try failed' })),
});
