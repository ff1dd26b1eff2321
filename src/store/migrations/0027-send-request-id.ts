import type { Kysely } from 'kysely';

// The id of the HTTP request that made a send (its x-request-id), so the worker's
// delivery lines carry it and one can follow a request into its deliveries. Null for
// sends no request made (campaigns, service email) and for those stored before.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sends').addColumn('request_id', 'text').execute();
}
