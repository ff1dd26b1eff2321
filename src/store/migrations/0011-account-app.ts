import { sql, type Kysely } from 'kysely';
import { addNullable, addStartingAt, createTable, idKey, required } from './column-kit.ts';

// The account web application's own operations (issue 12): keys get a name and their
// last use (time and address), the ledger keeps the operator's words for a top-up, the
// processes report in (the operator's service health), and the messages log gets the
// indexes its filters need at a million messages (bench/messages-log.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await addStartingAt(db, 'api_keys', '', { name: 'text' });
  await addNullable(db, 'api_keys', { last_used_at: 'bigint', last_used_ip: 'text' });

  await addNullable(db, 'ledger', { note: 'text' });

  // One row per running process, its heartbeat refreshed every few seconds.
  await createTable(db, 'processes', [idKey, required('text', 'role'), required('integer', 'pid'), required('text', 'host'), required('bigint', 'started_at', 'last_seen_at')]);
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
