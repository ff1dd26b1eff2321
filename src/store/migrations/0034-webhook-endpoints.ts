import type { Kysely } from 'kysely';
import { accountRow, addNullable, createTable, nullable, required, stamps } from './column-kit.ts';

// Issue 25: an account posts its events to several webhook endpoints. The account's
// first endpoint stays on the accounts row (PUT /v1/webhooks, unchanged, so existing
// integrations and the one-statement receipt path keep their shape); the others are
// rows of webhook_endpoints, each with its own URL, filter, secret (and rotation) and
// disabled state. Nothing is moved: no existing row changes meaning.
export async function up(db: Kysely<unknown>): Promise<void> {
  // events: JSON array of public types, null: every type. disabled_at/_reason: a 410 Gone
  // or PATCH {enabled:false}; nothing is posted until it is enabled again.
  await createTable(db, 'webhook_endpoints', [
    accountRow, required('text', 'url'), nullable('text', 'description', 'events'), required('text', 'secret'),
    nullable('text', 'secret_previous'), nullable('bigint', 'secret_previous_until', 'disabled_at'), nullable('text', 'disabled_reason'), stamps,
  ]);
  await db.schema.createIndex('webhook_endpoints_account').on('webhook_endpoints').columns(['account_id', 'id']).execute();

  // The first endpoint's description (the others keep theirs on their row).
  await addNullable(db, 'accounts', { webhook_description: 'text' });
  // Which endpoint a delivery goes to: null, the account's first endpoint (every delivery made before this).
  await addNullable(db, 'webhook_deliveries', { endpoint_id: 'text' });
}
