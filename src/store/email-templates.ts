import type { EmailTemplateRow, Executor } from './database.ts';

export interface EmailTemplate {
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  readonly subject: string | null;
  readonly html: string;
  readonly text: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

const toTemplate = (row: EmailTemplateRow): EmailTemplate => ({
  id: row.id, accountId: row.account_id, name: row.name, subject: row.subject, html: row.html, text: row.text,
  createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
});

export async function insertEmailTemplate(db: Executor, t: EmailTemplate): Promise<void> {
  await db
    .insertInto('email_templates')
    .values({ id: t.id, account_id: t.accountId, name: t.name, subject: t.subject, html: t.html, text: t.text, created_at: t.createdAt, updated_at: t.updatedAt })
    .execute();
}

/** Scoped by account: another account's template id finds nothing. */
export async function findEmailTemplate(db: Executor, accountId: string, id: string): Promise<EmailTemplate | undefined> {
  const row = await db.selectFrom('email_templates').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return row && toTemplate(row);
}

export async function listEmailTemplates(db: Executor, accountId: string): Promise<EmailTemplate[]> {
  const rows = await db.selectFrom('email_templates').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute();
  return rows.map(toTemplate);
}

export async function updateEmailTemplate(
  db: Executor, accountId: string, id: string, now: number,
  changes: { name: string; subject: string | null; html: string; text: string | null },
): Promise<boolean> {
  const result = await db
    .updateTable('email_templates')
    .set({ ...changes, updated_at: now })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** The names of the account's campaigns in these statuses that send this template, by name (at most `limit`). */
export async function campaignsUsingTemplate(
  db: Executor, accountId: string, templateId: string, statuses: readonly string[], limit: number,
): Promise<string[]> {
  const rows = await db.selectFrom('campaigns').select('name')
    .where('account_id', '=', accountId).where('template_id', '=', templateId).where('status', 'in', [...statuses])
    .orderBy('name').limit(limit).execute();
  return rows.map((row) => row.name);
}

export async function deleteEmailTemplate(db: Executor, accountId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('email_templates').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return result.numDeletedRows === 1n;
}
