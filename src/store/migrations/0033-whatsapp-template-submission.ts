import type { Kysely } from 'kysely';
import { addNullable, addStartingAt } from './column-kit.ts';

// WhatsApp templates created by the account (POST /v1/whatsapp/templates) and submitted to
// Meta's template management: their category and optional header and footer, how far the
// submission went (`local`: kept in herald only, as the operator's records always were;
// `queued`, `submitting`, `submitted`, `refused`), Meta's id and its refusal. The account's
// WhatsApp Business account id names where templates are submitted.
export async function up(db: Kysely<unknown>): Promise<void> {
  await addStartingAt(db, 'whatsapp_templates', 'UTILITY', { category: 'text' });
  await addStartingAt(db, 'whatsapp_templates', 'local', { submission: 'text' });
  await addNullable(db, 'whatsapp_templates', { header: 'text', footer: 'text', meta_template_id: 'text', submission_error: 'text' });
  // The submission job reads the queued ones: few, among many recorded.
  await db.schema.createIndex('whatsapp_templates_submission').on('whatsapp_templates').columns(['submission', 'updated_at']).execute();
  await addNullable(db, 'accounts', { whatsapp_business_account_id: 'text' });
}
