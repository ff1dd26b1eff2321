import { inPart, type TemplateEngine } from '../domain/email-template.ts';
import { ok, type Result } from '../domain/result.ts';
import type { Attributes } from './contact-fields.ts';

// A campaign's content, personalised per contact. The template language is the one of
// POST /v1/email and stored templates (domain/email-template.ts), where a dotted path is
// one variable whose name holds the dots; a campaign fills `{{contact.email}}`,
// `{{contact.name}}` and `{{contact.attributes.city}}` (also after `#if`/`#unless`) from
// the contact, in a flat map (contactVariables). `{{unsubscribe_url}}` is the message's signed link; a body
// that does not place it gets a footer that does, so no campaign message lacks one.

/** The content fixed at send, before personalisation: sources with the footer in place. */
export interface CampaignSource {
  readonly subject: string;
  readonly html: string | null;
  readonly text: string | null;
}

export interface RenderedEmail {
  readonly subject: string;
  readonly html: string | null;
  readonly text: string | null;
}

const PLACES_UNSUBSCRIBE = /\{\{~?\s*unsubscribe_url\s*~?\}\}/;

export const HTML_FOOTER = '<p style="font-size:12px;color:#666666">You receive this email because you subscribed. <a href="{{unsubscribe_url}}">Unsubscribe</a></p>';
export const TEXT_FOOTER = '\n\n--\nUnsubscribe: {{unsubscribe_url}}\n';

function withHtmlFooter(html: string): string {
  if (PLACES_UNSUBSCRIBE.test(html)) return html;
  const end = html.search(/<\/body\s*>/i);
  return end < 0 ? `${html}${HTML_FOOTER}` : `${html.slice(0, end)}${HTML_FOOTER}${html.slice(end)}`;
}

const withTextFooter = (text: string): string => (PLACES_UNSUBSCRIBE.test(text) ? text : `${text}${TEXT_FOOTER}`);

/** The sources as the campaign's messages render them: footers added; checked to compile. */
export function campaignSource(templates: TemplateEngine, content: RenderedEmail): Result<CampaignSource> {
  const source: CampaignSource = {
    subject: content.subject,
    html: content.html === null ? null : withHtmlFooter(content.html),
    text: content.text === null ? null : withTextFooter(content.text),
  };
  const subject = inPart(templates.compileSubject(source.subject), 'subject');
  if (!subject.ok) return subject;
  for (const [text, mode] of [[source.html, 'html'], [source.text, 'text']] as const) {
    if (text === null) continue;
    const compiled = inPart(templates.compile(text, mode), mode);
    if (!compiled.ok) return compiled;
  }
  return ok(source);
}

/** The contact as template variables: `contact.email`, `contact.name`, `contact.attributes.<path>` (text, numbers and booleans). */
export function contactVariables(contact: { readonly email: string; readonly name: string | null; readonly attributes: Attributes }): Record<string, string> {
  const variables: Record<string, string> = Object.create(null) as Record<string, string>;
  variables['contact.email'] = contact.email;
  if (contact.name !== null) variables['contact.name'] = contact.name;
  const walk = (value: unknown, path: string): void => {
    if (typeof value === 'string') variables[path] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') variables[path] = String(value);
    else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [key, inner] of Object.entries(value)) walk(inner, `${path}.${key}`);
    }
  };
  walk(contact.attributes, 'contact.attributes');
  return variables;
}

/** One contact's email: the campaign's variables, then the contact's and the unsubscribe link (which win). */
export function renderCampaignEmail(templates: TemplateEngine, source: CampaignSource, variables: Readonly<Record<string, string>>): Result<RenderedEmail> {
  const subject = templates.renderSubject(source.subject, variables);
  if (!subject.ok) return subject;
  const render = (text: string | null, mode: 'html' | 'text'): Result<string | null> => {
    if (text === null) return ok(null);
    const compiled = templates.compile(text, mode);
    return compiled.ok ? templates.render(compiled.value, variables) : compiled;
  };
  const html = render(source.html, 'html');
  if (!html.ok) return html;
  const text = render(source.text, 'text');
  if (!text.ok) return text;
  return ok({ subject: subject.value, html: html.value, text: text.value });
}
