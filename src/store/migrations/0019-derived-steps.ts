import type { Kysely } from 'kysely';
import { addNullable } from './column-kit.ts';

// The internal steps of a message's history are no longer rows of their own (issue 15,
// item 2; store/message-timeline.ts): `queued` is the message row's created_at, and a
// delivery attempt's `sending` step is kept where it already has a row to ride on —
// the outbox row while the attempt runs (claimed_at), the outcome's event once it ends
// (sending_at). abandoned_at hands a claim that ended without an outcome (a worker
// that died) to the next claim, which writes that one step as an event row. Rows
// written before this migration keep their `queued` and `sending` events (the
// timeline shows a stored step instead of deriving it) and leave these columns null.
export async function up(db: Kysely<unknown>): Promise<void> {
  await addNullable(db, 'message_events', { sending_at: 'bigint' });
  await addNullable(db, 'outbox', { claimed_at: 'bigint', abandoned_at: 'bigint' });
}
