import { invalidField } from '../domain/admin-input.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import { inPart } from '../domain/email-template.ts';
import { textFromHtml } from '../domain/text-from-html.ts';
import { findEmailTemplate } from '../store/email-templates.ts';
import type { AppDeps } from './deps.ts';

// POST /v1/email/templates/render: what POST /v1/email would send for a template and
// variables, rendered by the same compiler (placeholders HTML-escaped in the HTML part,
// the subject one line), with the text part generated from the HTML when there is none.
// A stored template can be previewed with edited html or text before it is saved.

export interface RenderedTemplate {
  readonly subject: string;
  readonly html: string | null;
  readonly text: string;
}

/** Longest source accepted, per part, in characters. */
export const RENDER_SOURCE_MAX = 1_000_000;

/** What the route's schema (http/schemas/templates.ts RenderRequest) has let through. */
export interface RenderInput {
  readonly template_id?: string;
  readonly subject?: string;
  readonly html?: string;
  readonly text?: string;
  readonly variables?: Readonly<Record<string, string>>;
}

export async function renderEmailTemplate(deps: AppDeps, accountId: string, body: RenderInput): Promise<Result<RenderedTemplate>> {
  const { template_id: templateId } = body;
  const variables = { ...body.variables };
  const stored = templateId === undefined ? undefined : await findEmailTemplate(deps.db, accountId, templateId);
  if (templateId !== undefined && stored === undefined) return reject('notFound');
  const htmlSource = body.html ?? stored?.html;
  if (htmlSource === undefined) return invalidField('html', 'give the HTML to render, or a template_id');
  // An empty text part means none, as when a template is saved: the text comes from the HTML.
  const textSource = body.text !== undefined ? (body.text === '' ? null : body.text) : (stored?.text ?? null);

  const { templates } = deps;
  const renderedSubject = inPart(templates.renderSubject(body.subject ?? stored?.subject ?? '', variables), 'subject');
  if (!renderedSubject.ok) return renderedSubject;
  const compiledHtml = inPart(templates.compile(htmlSource, 'html'), 'html');
  if (!compiledHtml.ok) return compiledHtml;
  const renderedHtml = templates.render(compiledHtml.value, variables);
  if (!renderedHtml.ok) return renderedHtml;
  let renderedText = textFromHtml(renderedHtml.value);
  if (textSource !== null) {
    const compiledText = inPart(templates.compile(textSource, 'text'), 'text');
    if (!compiledText.ok) return compiledText;
    const text = templates.render(compiledText.value, variables);
    if (!text.ok) return text;
    renderedText = text.value;
  }
  return ok({ subject: renderedSubject.value, html: renderedHtml.value, text: renderedText });
}
