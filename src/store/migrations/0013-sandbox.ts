import type { Kysely } from 'kysely';
import { addStartingAt, createTable, idKey, lease, required } from './column-kit.ts';

// The sandbox (issue 14, docs/sandbox.md): an API key is live or test, and so is every
// message sent with it. Test messages go through the capture transports, are never
// billed and are listed apart. Rows from before are live.
//
// simulated_reports: what the simulator's "peer" reports after it took a simulator
// recipient's message (delivered, bounced, opened, read, …), written with the accepting
// outcome and recorded when due by a queue of its own (outbox/simulated-reports.ts), so
// a restart or another process loses none of them.
export async function up(db: Kysely<unknown>): Promise<void> {
  await addStartingAt(db, 'api_keys', 'live', { mode: 'text' });
  await addStartingAt(db, 'messages', 'live', { mode: 'text' });

  // id: UUIDv7, a message's reports in their order
  await createTable(db, 'simulated_reports', [idKey, required('text', 'message_id', 'account_id', 'step'), required('bigint', 'due_at'), lease]);
  await db.schema.createIndex('simulated_reports_due').on('simulated_reports').column('due_at').execute();
  await db.schema.createIndex('simulated_reports_message').on('simulated_reports').columns(['message_id', 'id']).execute();
}
