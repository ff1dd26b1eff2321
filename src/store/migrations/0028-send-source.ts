import type { Kysely } from 'kysely';

// Which door a send came in by: `api` (POST /v1/…, campaigns, service email) or `smtp`
// (SMTP submission, src/submission/). GET /v1/messages/:msgid shows it as `source`.
// Every send stored before was the API's.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sends').addColumn('source', 'text', (column) => column.notNull().defaultTo('api')).execute();
}
