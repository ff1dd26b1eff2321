import type { Tx } from '../database.ts';
import { queryRows, statement } from '../prepared-statement.ts';
import type { AttemptOutcome, AttemptWrite } from '../engine.ts';

// PostgreSQL: the dispatcher's finished attempts recorded in ONE statement, whatever
// their outcomes (a multi-row UPDATE … FROM unnest(…) with the attempt rows inserted in
// the same statement); the claim is one more (queue/webhooks/postgres-step.ts). Arrays
// rather than a VALUES per count: one text, prepared once per connection. SQLite keeps
// separate statements (store/sqlite/webhook-attempts.ts): in process, no round trip to save.

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

// As store/sqlite/webhook-attempts.ts RECORD: conditioned on the lease, and a delivery no longer pending keeps its next_attempt_at.
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
