import type { Tx } from '../../store/database.ts';
import { queryRows, statement } from '../../store/prepared-statement.ts';
import { DUE_DELIVERIES } from './due-deliveries.ts';
import type { NextStep } from './retry-policy.ts';

// PostgreSQL: the dispatcher's step in two statements where it took four or more
// (each a round trip to the server): the finished attempts recorded in ONE statement,
// whatever their outcomes (a multi-row UPDATE … FROM unnest(…) with the attempt rows
// inserted in the same statement), and the claim in ONE (the due rows picked and leased
// by a data-modifying statement over a materialized CTE). Arrays rather than a VALUES
// per count: one text, prepared once per connection. SQLite keeps webhooks/record.ts's
// and claim.ts's separate statements: they run in process, no round trip to save.

/** One finished attempt's outcome, as recorded (record.ts AttemptRecord adds what the log and a 410 need). */
export interface AttemptOutcome {
  readonly deliveryId: string;
  /** This attempt's number (attempts made before it + 1); unchanged when nothing was posted. */
  readonly attempts: number;
  readonly at: number;
  /** null when nothing was posted (no webhook URL, webhooks disabled): no attempt row, the delivery just moves on. */
  readonly url: string | null;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly durationMs: number;
  readonly next: NextStep;
}

/** What recording attempts writes with: the time of the write and the attempt rows' ids. */
export interface AttemptWrite {
  readonly now: number;
  readonly newId: () => string;
}

/**
 * The deliveries' outcomes, each moved only while `owner` holds its lease, and an
 * attempt row for each posted one whose lease held; returns the ids recorded.
 */
export async function recordAttemptsInOne(
  tx: Tx,
  owner: string,
  records: readonly AttemptOutcome[],
  write: AttemptWrite,
): Promise<Set<string>> {
  const posted = records.filter((r) => r.url !== null);
  const rows = await queryRows<{ id: string }>(tx, RECORD_WITH_ATTEMPTS, [
    owner, write.now,
    records.map((r) => r.deliveryId), records.map((r) => r.next.status), records.map((r) => r.attempts),
    records.map((r) => (r.next.status === 'pending' ? r.next.nextAttemptAt : null)), records.map((r) => r.statusCode), records.map((r) => r.error),
    posted.map(() => write.newId()), posted.map((r) => r.deliveryId), posted.map((r) => r.at), posted.map((r) => r.url),
    posted.map((r) => r.statusCode), posted.map((r) => r.error), posted.map((r) => r.durationMs),
  ]);
  return new Set(rows.map((row) => row.id));
}

// As record.ts RECORD: conditioned on the lease, and a delivery no longer pending keeps its next_attempt_at.
const RECORD_WITH_ATTEMPTS = statement(`
  with outcome as (select * from unnest($3::text[], $4::text[], $5::int[], $6::bigint[], $7::int[], $8::text[])
                     as o(id, status, attempts, next_attempt_at, status_code, error)),
       recorded as (update webhook_deliveries d
                    set status = o.status, attempts = o.attempts, next_attempt_at = coalesce(o.next_attempt_at, d.next_attempt_at),
                        last_status_code = o.status_code, last_error = o.error, lease_owner = null, lease_expires_at = null, updated_at = $2
                    from outcome o
                    where d.id = o.id and d.lease_owner = $1
                    returning d.id),
       attempt as (insert into webhook_attempts (id, delivery_id, at, url, status_code, error, duration_ms)
                   select a.id, a.delivery_id, a.at, a.url, a.status_code, a.error, a.duration_ms
                   from unnest($9::text[], $10::text[], $11::bigint[], $12::text[], $13::int[], $14::text[], $15::int[])
                          as a(id, delivery_id, at, url, status_code, error, duration_ms)
                   join recorded r on r.id = a.delivery_id)
  select id from recorded`);

export interface LeasedDeliveryRow {
  id: string; account_id: string; message_id: string | null; type: string; payload: string; attempts: number; created_at: number;
}

/**
 * claim.ts's DUE and LEASE as one statement. The due rows are picked (and locked, SKIP
 * LOCKED) in a MATERIALIZED CTE, so the UPDATE joins its few ids through the primary key
 * rather than planning the pick into a scan of the table.
 */
export async function leaseDueInOne(tx: Tx, lease: { owner: string; now: number; leaseMs: number; limit: number }): Promise<LeasedDeliveryRow[]> {
  return queryRows<LeasedDeliveryRow>(tx, LEASE_DUE, [lease.now, lease.limit, lease.owner, lease.now + lease.leaseMs]);
}

const LEASE_DUE = statement(`
  with due as materialized (${DUE_DELIVERIES}
    for update skip locked)
  update webhook_deliveries w set lease_owner = $3, lease_expires_at = $4
  from due
  where w.id = due.id
  returning w.id, w.account_id, w.message_id, w.type, w.payload, w.attempts, w.created_at`);
