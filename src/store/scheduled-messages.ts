import type { Executor } from './database.ts';
import { execute, statement } from './prepared-statement.ts';

// A scheduled message (migration 0035) is a message in status `scheduled` whose outbox
// row is due at its send_at; the worker's claim takes it then, like any due row, and
// marks it `sending`. Cancelling or moving it works on the outbox row FIRST, then on the
// message, the order the claim locks them in (outbox/claim.ts), so a cancel and a claim
// of one message on PostgreSQL queue on the row instead of deadlocking: whichever comes
// second finds the row gone or leased and changes nothing.

/** Takes the message's outbox row away while no worker holds it; false when it is gone or claimed. */
export async function withdrawScheduledRow(db: Executor, messageId: string): Promise<boolean> {
  return await execute(db, WITHDRAW, [messageId]) === 1;
}

/** Moves a message still `scheduled` (and its unclaimed outbox row) to `sendAt`; false when it is no longer waiting. */
export async function moveScheduledMessage(db: Executor, messageId: string, sendAt: number, now: number): Promise<boolean> {
  if (await execute(db, MOVE_ROW, [sendAt, messageId]) !== 1) return false;
  return await execute(db, MOVE_MESSAGE, [sendAt, now, messageId]) === 1;
}

const WITHDRAW = statement('delete from outbox where message_id = $1 and lease_owner is null');
const MOVE_ROW = statement('update outbox set available_at = $1 where message_id = $2 and lease_owner is null');
const MOVE_MESSAGE = statement(`update messages set send_at = $1, updated_at = $2 where id = $3 and status = 'scheduled'`);
