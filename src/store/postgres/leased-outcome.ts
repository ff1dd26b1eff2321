import { predecessorsOf, type MessageStatus } from '../../domain/message-status.ts';
import type { Executor } from '../database.ts';
import type { LeasedOutcome, LeasedOutcomeEffects } from '../engine.ts';
import { queryRows, statement, type Statement } from '../prepared-statement.ts';
import { enqueueWebhookDeliveryOf, EVENT_SUBJECT_COLUMNS, EVENT_SUBJECT_JOINS, type EventSubject } from '../webhook-deliveries.ts';

// PostgreSQL: the worker's outcome for one claimed message in ONE statement (one round
// trip instead of four or five): the outbox row removed (or rescheduled) on condition
// of the lease, and only if that took, the status moved with its event and the webhook
// subject read (data-modifying CTEs, all on the statement's one snapshot). The webhook
// delivery, when the account wants one, is a second statement: its body is made in
// process (webhook-deliveries.ts). SQLite keeps the separate statements
// (store/sqlite/batch-operations.ts): they run in process, no round trip to save.

/** Null: the lease was lost, nothing was written. Otherwise as recordEvent's effects. */
export async function recordLeasedOutcome(db: Executor, outcome: LeasedOutcome): Promise<LeasedOutcomeEffects | null> {
  const parameters = [
    outcome.messageId, outcome.owner, outcome.status, outcome.at, outcome.providerRef ?? null, outcome.eventId, JSON.stringify(outcome.data), outcome.sendingAt,
  ];
  const [row] = outcome.retryAt === undefined
    ? await queryRows<EventSubject & { moved: boolean }>(db, outcomeStatement('release', outcome.status), parameters)
    : await queryRows<EventSubject & { moved: boolean }>(db, outcomeStatement('reschedule', outcome.status), [...parameters, outcome.retryAt]);
  if (row === undefined) return null;
  const event = { id: outcome.eventId, messageId: outcome.messageId, type: outcome.status, at: outcome.at, data: outcome.data };
  return { moved: row.moved, webhookQueued: await enqueueWebhookDeliveryOf(db, row, event) };
}

// $1 message, $2 lease owner, $3 status, $4 time, $5 provider reference or null,
// $6 event id, $7 event data, $8 the attempt's claim time, $9 (a retry) when it is due again.
// A retry clears the outbox row's claim time, kept on the event now (one still set at the next
// claim marks an attempt that ended without an outcome: outbox/claim.ts). The predecessors are
// literals of the closed set of statuses: one text per status and lease end.
const LEASE_ENDS = {
  release: 'delete from outbox where message_id = $1 and lease_owner = $2 returning message_id',
  reschedule: `update outbox set available_at = $9, lease_owner = null, lease_expires_at = null, claimed_at = null
               where message_id = $1 and lease_owner = $2 returning message_id`,
} as const;

const statements = new Map<string, Statement>();

function outcomeStatement(end: keyof typeof LEASE_ENDS, status: MessageStatus): Statement {
  const key = `${end} ${status}`;
  let known = statements.get(key);
  if (known === undefined) {
    const predecessors = predecessorsOf(status).map((p) => `'${p}'`).join(', ');
    // Whether a message row (by its alias) may move to `status`.
    const movable = (row: string): string => (predecessors === '' ? 'false' : `${row}status in (${predecessors})`);
    statements.set(key, (known = statement(`
  with lease as (${LEASE_ENDS[end]}),
       moved as (update messages
                 set status = case when ${movable('')} then $3::text else status end,
                     updated_at = case when ${movable('')} then $4::bigint else updated_at end,
                     provider_ref = coalesce($5::text, provider_ref)
                 where id in (select message_id from lease) and (${movable('')} or $5::text is not null)),
       event as (insert into message_events (id, message_id, type, at, data, sending_at)
                 select $6, message_id, $3::text, $4::bigint, $7, $8::bigint from lease)
  select ${EVENT_SUBJECT_COLUMNS}, ${movable('m.')} as moved
  from lease l
  join messages m on m.id = l.message_id
  ${EVENT_SUBJECT_JOINS}`)));
  }
  return known;
}
