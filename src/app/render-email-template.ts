import { fieldsOf, invalidField } from '../domain/admin-input.ts';
import { isJsonObject } from '../domain/json-object.ts';
import { ok, reject, type Result } from '../domain/result.ts';
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

function optionalString(value: unknown, field: string): Result<string | undefined> {
  if (value === undefined) return ok(undefined);
  if (typeof value !== 'string' || value.length > RENDER_SOURCE_MAX) return invalidField(field, `must be a string of at most ${RENDER_SOURCE_MAX} characters`);
  return ok(value);
}

function variablesOf(value: unknown): Result<Record<string, string>> {
  if (value === undefined) return ok({});
  if (!isJsonObject(value) || Object.values(value).some((v) => typeof v !== 'string')) return invalidField('variables', 'must be an object of strings');
  return ok(Object.fromEntries(Object.entries(value)) as Record<string, string>);
}

export async function renderEmailTemplate(deps: AppDeps, accountId: string, body: unknown): Promise<Result<RenderedTemplate>> {
  const fields = fieldsOf(body, ['template_id', 'subject', 'html', 'text', 'variables']);
  if (!fields.ok) return fields;
  const subject = optionalString(fields.value.subject, 'subject');
  if (!subject.ok) return subject;
  const html = optionalString(fields.value.html, 'html');
  if (!html.ok) return html;
  const text = optionalString(fields.value.text, 'text');
  if (!text.ok) return text;
  const variables = variablesOf(fields.value.variables);
  if (!variables.ok) return variables;
  const templateId = fields.value.template_id;
  if (templateId !== undefined && typeof templateId !== 'string') return invalidField('template_id', 'must be a string');

  const stored = templateId === undefined ? undefined : await findEmailTemplate(deps.db, accountId, templateId);
  if (templateId !== undefined && stored === undefined) return reject('notFound');
  const htmlSource = html.value ?? stored?.html;
  if (htmlSource === undefined) return invalidField('html', 'give the HTML to render, or a template_id');
  // An empty text part means none, as when a template is saved: the text comes from the HTML.
  const textSource = text.value !== undefined ? (text.value === '' ? null : text.value) : (stored?.text ?? null);

  const { templates } = deps;
  const renderedSubject = templates.renderSubject(subject.value ?? stored?.subject ?? '', variables.value);
  if (!renderedSubject.ok) return renderedSubject;
  const compiledHtml = templates.compile(htmlSource, 'html');
  if (!compiledHtml.ok) return compiledHtml;
  const renderedHtml = templates.render(compiledHtml.value, variables.value);
  if (!renderedHtml.ok) return renderedHtml;
  let renderedText = textFromHtml(renderedHtml.value);
  if (textSource !== null) {
    const compiledText = templates.compile(textSource, 'text');
    if (!compiledText.ok) return compiledText;
    const text = templates.render(compiledText.value, variables.value);
    if (!text.ok) return text;
    renderedText = text.value;
  }
  return ok({ subject: renderedSubject.value, html: renderedHtml.value, text: renderedText });
}
