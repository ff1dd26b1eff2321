import type { Kysely } from 'kysely';
import { accountRow, addNullable, createTable, nullable, required, stamps } from './column-kit.ts';

// Issue 25, item 4: a send's fallback chain (docs/fallback.md). One row per leg after the
// first: its reserved msgid (`id`) and send id, the checked payload it will send, what was
// debited for it at acceptance, the message whose delivery it waits for, and when it goes
// anyway (`due_at`). state: waiting | released | cancelled. The periodic job reads the
// waiting ones by (state, due_at, id): the due ones, and a slice of the others a turn. sends.fallback: {chain_id, leg, legs} of a leg's send,
// echoed in its webhook events.
export async function up(db: Kysely<unknown>): Promise<void> {
  await createTable(db, 'fallback_legs', [
    accountRow,
    required('text', 'chain_id', 'send_id', 'previous_message_id', 'channel', 'recipient', 'payload', 'options', 'mode', 'state'),
    required('integer', 'leg', 'legs'),
    required('bigint', 'after_ms', 'reserved_messages', 'reserved_balance'),
    nullable('bigint', 'due_at'),
    nullable('text', 'request_id'),
    stamps,
  ]);
  await db.schema.createIndex('fallback_legs_state_due').on('fallback_legs').columns(['state', 'due_at', 'id']).execute();
  await db.schema.createIndex('fallback_legs_chain').on('fallback_legs').columns(['chain_id', 'leg']).execute();
  await addNullable(db, 'sends', { fallback: 'text' });
}
