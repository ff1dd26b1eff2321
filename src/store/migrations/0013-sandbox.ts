import type { Kysely } from 'kysely';

// The sandbox (issue 14, docs/sandbox.md): an API key is live or test, and so is every
// message sent with it. Test messages go through the capture transports, are never
// billed and are listed apart. Rows from before are live.
//
// simulated_reports: what the simulator's "peer" reports after it took a simulator
// recipient's message (delivered, bounced, opened, read, …), written with the accepting
// outcome and recorded when due by a queue of its own (outbox/simulated-reports.ts), so
// a restart or another process loses none of them.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('mode', 'text', (c) => c.notNull().defaultTo('live')).execute();
  await db.schema.alterTable('messages').addColumn('mode', 'text', (c) => c.notNull().defaultTo('live')).execute();

  await db.schema
    .createTable('simulated_reports')
    .addColumn('id', 'text', (c) => c.primaryKey()) // UUIDv7: a message's reports in their order
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('step', 'text', (c) => c.notNull())
    .addColumn('due_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'bigint')
    .execute();
  await db.schema.createIndex('simulated_reports_due').on('simulated_reports').column('due_at').execute();
  await db.schema.createIndex('simulated_reports_message').on('simulated_reports').columns(['message_id', 'id']).execute();
}
