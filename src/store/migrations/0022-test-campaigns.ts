import type { Kysely } from 'kysely';

// Test keys stay in the sandbox (issue 19, docs/sandbox.md): a campaign made by a test
// key is a test campaign, whose messages are test messages (captured, never billed),
// and a contact import started by a test key queues its confirmation emails as test
// messages. Rows from before are live.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('campaigns').addColumn('mode', 'text', (c) => c.notNull().defaultTo('live')).execute();
  await db.schema.alterTable('contact_imports').addColumn('mode', 'text', (c) => c.notNull().defaultTo('live')).execute();
}
