import type { Kysely } from 'kysely';

// The messages log is ordered by (created_at, id), newest first, with a cursor naming
// both (domain/message-query.ts). Ordered by id alone, a one-day window could not use an
// index for both its range and its order: SQLite walked the account's ids down to the
// day, PostgreSQL sorted the whole day (416 ms and 1,074 ms at 1,000,000 messages,
// bench/messages-log.ts). Each index the log's filters use now ends in (created_at, id),
// so a page is one index range read in order; (account_id, created_at) is a prefix of
// the new one and goes. In SQLite an index holds the rowid, not the text id, hence `id`
// is a column of each.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('messages_account_created_id').on('messages').columns(['account_id', 'created_at', 'id']).execute();
  await db.schema.dropIndex('messages_account_created').execute();
  await db.schema.createIndex('messages_account_status_created').on('messages').columns(['account_id', 'status', 'created_at', 'id']).execute();
  await db.schema.dropIndex('messages_account_status').execute();
  await db.schema.createIndex('messages_account_recipient_created').on('messages').columns(['account_id', 'recipient', 'created_at', 'id']).execute();
  await db.schema.dropIndex('messages_account_recipient').execute();
}
