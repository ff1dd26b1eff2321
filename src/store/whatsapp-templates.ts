import type { Executor, WhatsappTemplateRow } from './database.ts';

export const WHATSAPP_TEMPLATE_STATUSES = ['APPROVED', 'PENDING', 'REJECTED'] as const;
export type WhatsappTemplateStatus = (typeof WHATSAPP_TEMPLATE_STATUSES)[number];

/** Meta's template categories. */
export const WHATSAPP_TEMPLATE_CATEGORIES = ['UTILITY', 'MARKETING', 'AUTHENTICATION'] as const;
export type WhatsappTemplateCategory = (typeof WHATSAPP_TEMPLATE_CATEGORIES)[number];

/**
 * How far a template's submission to Meta went: `local` (kept in herald only: recorded by the
 * operator, or created without a WhatsApp Business account), `queued` (waiting for the
 * submission job), `submitting` (being posted), `submitted` (Meta took it), `refused` (Meta said no).
 */
export const WHATSAPP_TEMPLATE_SUBMISSIONS = ['local', 'queued', 'submitting', 'submitted', 'refused'] as const;
export type WhatsappTemplateSubmission = (typeof WHATSAPP_TEMPLATE_SUBMISSIONS)[number];

export interface WhatsappTemplate {
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  readonly language: string;
  readonly body: string;
  readonly paramCount: number;
  readonly status: WhatsappTemplateStatus;
  /** Absent when stored: UTILITY. */
  readonly category?: WhatsappTemplateCategory;
  readonly header?: string | null;
  readonly footer?: string | null;
  /** Absent when stored: `local`. */
  readonly submission?: WhatsappTemplateSubmission;
  readonly metaTemplateId?: string | null;
  readonly submissionError?: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

const toTemplate = (row: WhatsappTemplateRow): Required<WhatsappTemplate> => ({
  id: row.id, accountId: row.account_id, name: row.name, language: row.language, body: row.body,
  paramCount: row.param_count, status: row.status as WhatsappTemplateStatus,
  category: row.category as WhatsappTemplateCategory, header: row.header, footer: row.footer,
  submission: row.submission as WhatsappTemplateSubmission, metaTemplateId: row.meta_template_id, submissionError: row.submission_error,
  createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
});

export async function insertWhatsappTemplate(db: Executor, t: WhatsappTemplate): Promise<void> {
  await db
    .insertInto('whatsapp_templates')
    .values({
      id: t.id, account_id: t.accountId, name: t.name, language: t.language, body: t.body,
      param_count: t.paramCount, status: t.status, category: t.category ?? 'UTILITY', header: t.header ?? null, footer: t.footer ?? null,
      submission: t.submission ?? 'local', meta_template_id: t.metaTemplateId ?? null, submission_error: t.submissionError ?? null,
      created_at: t.createdAt, updated_at: t.updatedAt,
    })
    .execute();
}

export async function findWhatsappTemplate(db: Executor, accountId: string, id: string): Promise<Required<WhatsappTemplate> | undefined> {
  const row = await db.selectFrom('whatsapp_templates').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return row && toTemplate(row);
}

export async function listWhatsappTemplates(db: Executor, accountId: string): Promise<Required<WhatsappTemplate>[]> {
  const rows = await db.selectFrom('whatsapp_templates').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute();
  return rows.map(toTemplate);
}

/** Whether the account already has a template of this name and language (Meta's own key). */
export async function whatsappTemplateExists(db: Executor, accountId: string, name: string, language: string): Promise<boolean> {
  const row = await db.selectFrom('whatsapp_templates').select('id')
    .where('account_id', '=', accountId).where('name', '=', name).where('language', '=', language).executeTakeFirst();
  return row !== undefined;
}

/**
 * The oldest templates waiting for the submission job, at most `limit`: new ones at once,
 * one whose last try failed (it keeps that error) only once `retryBefore` has passed it.
 */
export async function queuedWhatsappTemplates(db: Executor, retryBefore: number, limit: number): Promise<Required<WhatsappTemplate>[]> {
  const rows = await db.selectFrom('whatsapp_templates').selectAll()
    .where('submission', '=', 'queued')
    .where((eb) => eb.or([eb('submission_error', 'is', null), eb('updated_at', '<=', retryBefore)]))
    .orderBy('updated_at').orderBy('id').limit(limit).execute();
  return rows.map(toTemplate);
}

/** Takes a queued template for this turn; false when another process took it first. */
export async function claimWhatsappTemplate(db: Executor, id: string, now: number): Promise<boolean> {
  const result = await db.updateTable('whatsapp_templates').set({ submission: 'submitting', updated_at: now })
    .where('id', '=', id).where('submission', '=', 'queued').executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Puts back in the queue what a stopped process left `submitting` since before `staleBefore`. */
export async function requeueStaleWhatsappSubmissions(db: Executor, staleBefore: number, now: number): Promise<void> {
  await db.updateTable('whatsapp_templates').set({ submission: 'queued', updated_at: now })
    .where('submission', '=', 'submitting').where('updated_at', '<', staleBefore).execute();
}

export interface SubmissionOutcome {
  readonly submission: Extract<WhatsappTemplateSubmission, 'queued' | 'submitted' | 'refused'>;
  readonly status?: WhatsappTemplateStatus;
  readonly metaTemplateId?: string;
  readonly submissionError: string | null;
}

/** Records what Meta answered to a claimed template's submission. */
export async function recordWhatsappSubmission(db: Executor, id: string, outcome: SubmissionOutcome, now: number): Promise<void> {
  await db.updateTable('whatsapp_templates').set({
    submission: outcome.submission, submission_error: outcome.submissionError, updated_at: now,
    ...(outcome.status === undefined ? {} : { status: outcome.status }),
    ...(outcome.metaTemplateId === undefined ? {} : { meta_template_id: outcome.metaTemplateId }),
  }).where('id', '=', id).where('submission', '=', 'submitting').execute();
}

/** How many templates the account keeps. */
export async function countWhatsappTemplates(db: Executor, accountId: string): Promise<number> {
  const row = await db.selectFrom('whatsapp_templates').select((eb) => eb.fn.countAll().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Deletes one of the account's templates; false when it has none with this id. */
export async function deleteWhatsappTemplate(db: Executor, accountId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('whatsapp_templates').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
