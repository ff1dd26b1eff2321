import type { Executor, WhatsappTemplateRow } from './database.ts';

export const WHATSAPP_TEMPLATE_STATUSES = ['APPROVED', 'PENDING', 'REJECTED'] as const;
export type WhatsappTemplateStatus = (typeof WHATSAPP_TEMPLATE_STATUSES)[number];

export interface WhatsappTemplate {
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  readonly language: string;
  readonly body: string;
  readonly paramCount: number;
  readonly status: WhatsappTemplateStatus;
  readonly createdAt: number;
  readonly updatedAt: number;
}

const toTemplate = (row: WhatsappTemplateRow): WhatsappTemplate => ({
  id: row.id, accountId: row.account_id, name: row.name, language: row.language, body: row.body,
  paramCount: row.param_count, status: row.status as WhatsappTemplateStatus,
  createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
});

export async function insertWhatsappTemplate(db: Executor, t: WhatsappTemplate): Promise<void> {
  await db
    .insertInto('whatsapp_templates')
    .values({
      id: t.id, account_id: t.accountId, name: t.name, language: t.language, body: t.body,
      param_count: t.paramCount, status: t.status, created_at: t.createdAt, updated_at: t.updatedAt,
    })
    .execute();
}

export async function findWhatsappTemplate(db: Executor, accountId: string, id: string): Promise<WhatsappTemplate | undefined> {
  const row = await db.selectFrom('whatsapp_templates').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return row && toTemplate(row);
}

export async function listWhatsappTemplates(db: Executor, accountId: string): Promise<WhatsappTemplate[]> {
  const rows = await db.selectFrom('whatsapp_templates').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute();
  return rows.map(toTemplate);
}
