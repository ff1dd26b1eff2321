import type { TemplateEngine } from '../domain/email-template.ts';
import { ok, type Result } from '../domain/result.ts';
import { CONFIRMATION_LINK_DAYS } from './consent-token.ts';

// The double opt-in confirmation email: herald's own text, or the list's template
// (an email template of the account). Both are rendered by the same template engine
// as any email (domain/email-template.ts), with these variables:
//   confirm_url  the link (GET shows a page, its button POSTs the confirmation): in the
//                stored email a placeholder (domain/outbound.ts CONFIRM_LINK_PLACEHOLDER),
//                signed only in the recipient's copy (channels/email/compose.ts)
//   list_name, sender_name (the list's from name), email, name (empty when unknown)

export interface ConfirmationVariables {
  readonly confirm_url: string;
  readonly list_name: string;
  readonly sender_name: string;
  readonly email: string;
  readonly name: string;
}

export interface ConfirmationContent {
  readonly subject: string;
  readonly html: string;
  readonly text: string | null;
}

/** A stored template as the confirmation email uses it. */
export interface ConfirmationTemplate {
  readonly subject: string | null;
  readonly html: string;
  readonly text: string | null;
}

export const HERALD_CONFIRMATION: { readonly subject: string; readonly html: string; readonly text: string } = {
  subject: 'Confirm your subscription to {{list_name}}',
  html: `<p>Hello{{#if name}} {{name}}{{/if}},</p>
<p>Please confirm that {{email}} should receive email from {{sender_name}} on the list “{{list_name}}”.</p>
<p><a href="{{confirm_url}}">Confirm my subscription</a></p>
<p>The link works for ${CONFIRMATION_LINK_DAYS} days. If you did not ask for this, ignore this email: you will not be subscribed.</p>
`,
  text: `Hello{{#if name}} {{name}}{{/if}},

Please confirm that {{email}} should receive email from {{sender_name}} on the list “{{list_name}}”:

{{confirm_url}}

The link works for ${CONFIRMATION_LINK_DAYS} days. If you did not ask for this, ignore this email: you will not be subscribed.
`,
};

/** Whether a template's HTML places the link: a list's template must. */
export function placesConfirmUrl(html: string): boolean {
  return /\{\{\s*confirm_url\s*\}\}/.test(html);
}

/** The email, from the list's template or herald's text; the template's own subject wins when it has one. */
export function renderConfirmation(
  templates: TemplateEngine, template: ConfirmationTemplate | undefined, variables: ConfirmationVariables,
): Result<ConfirmationContent> {
  const source = template ?? HERALD_CONFIRMATION;
  const values: Record<string, string> = { ...variables };
  const subject = templates.renderSubject(source.subject ?? HERALD_CONFIRMATION.subject, values);
  if (!subject.ok) return subject;
  const html = templates.compile(source.html, 'html');
  if (!html.ok) return html;
  const renderedHtml = templates.render(html.value, values);
  if (!renderedHtml.ok) return renderedHtml;
  let text: string | null = null;
  if (source.text !== null) {
    const compiled = templates.compile(source.text, 'text');
    if (!compiled.ok) return compiled;
    const rendered = templates.render(compiled.value, values);
    if (!rendered.ok) return rendered;
    text = rendered.value;
  }
  return ok({ subject: subject.value, html: renderedHtml.value, text });
}
