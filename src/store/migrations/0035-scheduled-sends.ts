import type { Kysely } from 'kysely';

// Scheduled sends (issue 25): the time a message was asked to leave at (`send_at`, epoch
// ms; null: at once). Its outbox row's available_at holds the same time and is what the
// worker claims by; this column keeps it once the row is gone, for the message's view.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('send_at', 'bigint').execute();
}
