import type { Kysely } from 'kysely';

// The sandbox (issue 14, docs/sandbox.md): an API key is live or test, and so is every
// message sent with it. Test messages go through the capture transports, are never
// billed and are listed apart. Rows from before are live.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('mode', 'text', (c) => c.notNull().defaultTo('live')).execute();
  await db.schema.alterTable('messages').addColumn('mode', 'text', (c) => c.notNull().defaultTo('live')).execute();
}
