import { sql, type Kysely } from 'kysely';

// The account web application's own operations (issue 12): keys get a name and their
// last use (time and address), the ledger keeps the operator's words for a top-up, the
// processes report in (the operator's service health), and the messages log gets the
// indexes its filters need at a million messages (bench/messages-log.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('name', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('api_keys').addColumn('last_used_at', 'bigint').execute();
  await db.schema.alterTable('api_keys').addColumn('last_used_ip', 'text').execute();

  await db.schema.alterTable('ledger').addColumn('note', 'text').execute();

  // One row per running process, its heartbeat refreshed every few seconds.
  await db.schema
    .createTable('processes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('processes_last_seen').on('processes').column('last_seen_at').execute();
  // Failures of the last hour, over every account: a partial index, so the events that
  // are not failures (nearly all) cost the send path nothing.
  await db.schema.createIndex('message_events_failures').on('message_events').column('at')
    .where(sql<boolean>`type in ('failed', 'bounced')`).execute();

  // The log's filters, newest first within each: by recipient, and by status (a rare
  // status would otherwise scan the whole account for a page).
  await db.schema.createIndex('messages_account_recipient').on('messages').columns(['account_id', 'recipient', 'id']).execute();
  await db.schema.createIndex('messages_account_status').on('messages').columns(['account_id', 'status', 'id']).execute();
}
