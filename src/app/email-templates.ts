import { inPart, type TemplateEngine } from '../domain/email-template.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import {
  campaignsUsingTemplate, deleteEmailTemplate, findEmailTemplate, insertEmailTemplate, listEmailTemplates, updateEmailTemplate, type EmailTemplate,
} from '../store/email-templates.ts';
import type { AppDeps } from './deps.ts';
import { isJsonObject, ownField, type JsonObject } from '../domain/json-object.ts';

// The account's stored email templates (GET/POST /v1/email/templates, GET/PUT/DELETE
// /v1/email/templates/:template_id). Every read and write is scoped to the caller's
// account: another account's id is simply not found. Placeholders are checked when a
// template is saved, with the rules used at send time, so a stored template always renders.

/** Longest template name accepted, in characters (code points). */
export const TEMPLATE_NAME_MAX = 200;

export interface EmailTemplateSummary {
  readonly template_id: string;
  readonly name: string;
  readonly subject: string | null;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface EmailTemplateView extends EmailTemplateSummary {
  readonly html: string;
  readonly text: string | null;
}

interface TemplateContent {
  readonly name: string;
  readonly subject: string | null;
  readonly html: string;
  readonly text: string | null;
}

const iso = (ms: number): string => new Date(ms).toISOString();

const summaryOf = (t: EmailTemplate): EmailTemplateSummary => ({
  template_id: t.id, name: t.name, subject: t.subject, created_at: iso(t.createdAt), updated_at: iso(t.updatedAt),
});

const viewOf = (t: EmailTemplate): EmailTemplateView => ({
  template_id: t.id, name: t.name, subject: t.subject, html: t.html, text: t.text, created_at: iso(t.createdAt), updated_at: iso(t.updatedAt),
});

const invalid = (detail: string) => reject('invalidField', { detail });

/**
 * An optional string field: absent, null and '' all mean "none" (stored as null), so an
 * empty text part never replaces the one generated from the HTML.
 */
function optionalText(body: JsonObject, field: string): Result<string | null> {
  const value = ownField(body, field);
  if (value === undefined || value === null || value === '') return ok(null);
  if (typeof value !== 'string') return invalid(`${field}: must be a string or null`);
  return ok(value);
}

/** Fields first (herald's `invalidField` with the field named), then placeholder syntax and the template limits. */
function parseTemplateContent(templates: TemplateEngine, body: unknown): Result<TemplateContent> {
  if (!isJsonObject(body)) return invalid('body: must be a JSON object');
  const name = ownField(body, 'name');
  // Control characters (NUL above all, which PostgreSQL text cannot hold) have no place in a name.
  // The length in code units first: a code point takes at most two, and a huge name is refused unread.
  if (typeof name !== 'string' || name.length > 2 * TEMPLATE_NAME_MAX || name.trim() === '' || [...name].length > TEMPLATE_NAME_MAX || /\p{Cc}/u.test(name)) {
    return invalid(`name: must be a non-empty string of at most ${TEMPLATE_NAME_MAX} characters, without control characters`);
  }
  const subject = optionalText(body, 'subject');
  if (!subject.ok) return subject;
  const html = ownField(body, 'html');
  if (typeof html !== 'string' || html.trim() === '') return invalid('html: must be a non-empty string');
  const text = optionalText(body, 'text');
  if (!text.ok) return text;

  // The modes used at send time: HTML escapes values, text and subject insert them raw.
  const htmlSyntax = inPart(templates.compile(html, 'html'), 'html');
  if (!htmlSyntax.ok) return htmlSyntax;
  if (text.value !== null) {
    const textSyntax = inPart(templates.compile(text.value, 'text'), 'text');
    if (!textSyntax.ok) return textSyntax;
  }
  if (subject.value !== null) {
    const subjectSyntax = inPart(templates.compileSubject(subject.value), 'subject');
    if (!subjectSyntax.ok) return subjectSyntax;
  }
  return ok({ name, subject: subject.value, html, text: text.value });
}

/** Oldest first (ids are UUIDv7, so id order is creation order). */
export async function listEmailTemplatesOf(deps: AppDeps, accountId: string): Promise<EmailTemplateSummary[]> {
  return (await listEmailTemplates(deps.db, accountId)).map(summaryOf);
}

export async function getEmailTemplate(deps: AppDeps, accountId: string, templateId: string): Promise<Result<EmailTemplateView>> {
  const template = await findEmailTemplate(deps.db, accountId, templateId);
  return template ? ok(viewOf(template)) : reject('notFound');
}

export async function createEmailTemplate(deps: AppDeps, accountId: string, body: unknown): Promise<Result<EmailTemplateView>> {
  const content = parseTemplateContent(deps.templates, body);
  if (!content.ok) return content;
  const now = deps.clock();
  const template: EmailTemplate = { id: deps.newId(), accountId, ...content.value, createdAt: now, updatedAt: now };
  await insertEmailTemplate(deps.db, template);
  return ok(viewOf(template));
}

/** PUT: the body replaces every field (an omitted subject or text becomes null). */
export async function replaceEmailTemplate(
  deps: AppDeps, accountId: string, templateId: string, body: unknown,
): Promise<Result<EmailTemplateView>> {
  const content = parseTemplateContent(deps.templates, body);
  if (!content.ok) return content;
  const now = deps.clock();
  // Read and write in one transaction so the answer carries the row's own created_at.
  const replaced = await deps.db.transaction().execute(async (tx) => {
    const existing = await findEmailTemplate(tx, accountId, templateId);
    if (!existing) return undefined;
    if (!(await updateEmailTemplate(tx, accountId, templateId, now, content.value))) return undefined;
    return { ...existing, ...content.value, updatedAt: now };
  });
  return replaced ? ok(viewOf(replaced)) : reject('notFound');
}

// A campaign that may still send reads its template when it starts or resumes, so the
// template stays while one is scheduled, running or paused; drafts and finished ones do not hold it.
const HOLDING_STATUSES = ['scheduled', 'running', 'paused'] as const;
/** Campaigns named in the refusal's detail; the rest are counted. */
const NAMED_CAMPAIGNS = 3;

export async function removeEmailTemplate(deps: AppDeps, accountId: string, templateId: string): Promise<Result<null>> {
  return deps.db.transaction().execute(async (tx) => {
    const users = await campaignsUsingTemplate(tx, accountId, templateId, HOLDING_STATUSES, NAMED_CAMPAIGNS + 1);
    if (users.length > 0) {
      const named = users.slice(0, NAMED_CAMPAIGNS).map((name) => JSON.stringify(name)).join(', ');
      const more = users.length > NAMED_CAMPAIGNS ? ' and more' : '';
      return reject('templateInUse', { detail: `used by the campaign${users.length > 1 ? 's' : ''} ${named}${more}; cancel or finish ${users.length > 1 ? 'them' : 'it'} first` });
    }
    return (await deleteEmailTemplate(tx, accountId, templateId)) ? ok(null) : reject('notFound');
  });
}
