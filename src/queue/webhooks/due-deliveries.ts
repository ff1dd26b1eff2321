// The deliveries due at $1, at most $2, in the order they are posted: pending, their
// time come, no lease in force, and no earlier delivery of the same message still
// pending for the same endpoint (head of line per message and endpoint, claim.ts). Shared by SQLite's claim (claim.ts) and
// PostgreSQL's one-statement claim (postgres-step.ts).
export const DUE_DELIVERIES = `
  select d.id from webhook_deliveries d
  where d.status = 'pending' and d.next_attempt_at <= $1
    and (d.lease_expires_at is null or d.lease_expires_at <= $1)
    and not exists (select 1 from webhook_deliveries e
                    where e.message_id = d.message_id and e.status = 'pending' and e.id < d.id
                      and e.endpoint_id is not distinct from d.endpoint_id)
  order by d.next_attempt_at, d.id
  limit $2`;
