import type { Db, Tx } from '../store/database.ts';
import type { DialectCapabilities } from '../store/dialect.ts';
import { execute, placeholders, queryRows, statement, statementPerCount } from '../store/prepared-statement.ts';

export interface ClaimedDelivery {
  readonly id: string;
  readonly accountId: string;
  readonly messageId: string | null;
  readonly type: string;
  readonly payload: string;
  /** Attempts made before this one. */
  readonly attempts: number;
  /** When the delivery was made: the retry schedule's span counts from it (retry-policy.ts). */
  readonly createdAt: number;
}

/**
 * Leases up to `limit` due deliveries to `owner` until `now + leaseMs`: DUE picks them,
 * LEASE takes them (the SQL below).
 *
 * Head of line per message: a delivery is due only when no earlier (by id: event ids
 * are time-ordered) delivery of the same message is still pending — waiting for its
 * next slot or in flight — so a message's events reach the receiver in the order they
 * happened. Test events (no message) never wait on anything. Two statements rather
 * than `UPDATE … WHERE id IN (SELECT …)`: PostgreSQL plans that form as a scan of the
 * whole table, and the ids in hand go straight through the primary key. SQLite's write
 * lock (BEGIN IMMEDIATE) and PostgreSQL's row locks (SKIP LOCKED: concurrent
 * dispatchers pass each other's rows) keep the pair atomic: call it in a transaction
 * (record.ts recordAndClaim does).
 */
export async function claimDueDeliveries(
  tx: Tx,
  capabilities: DialectCapabilities,
  lease: { owner: string; now: number; leaseMs: number; limit: number },
): Promise<ClaimedDelivery[]> {
  const { owner, now, leaseMs, limit } = lease;
  const due = await queryRows<{ id: string }>(tx, capabilities.skipLocked ? DUE_SKIP_LOCKED : DUE, [now, limit]);
  if (due.length === 0) return [];
  const rows = await queryRows<LeasedRow>(tx, LEASE(due.length), [owner, now + leaseMs, ...due.map((d) => d.id)]);
  return rows
    .map((row) => ({
      id: row.id, accountId: row.account_id, messageId: row.message_id, type: row.type, payload: row.payload,
      attempts: Number(row.attempts), createdAt: Number(row.created_at),
    }))
    // RETURNING has no order of its own; deliveries start in id order.
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

const dueText = (lock: string) => `
  select d.id from webhook_deliveries d
  where d.status = 'pending' and d.next_attempt_at <= $1
    and (d.lease_expires_at is null or d.lease_expires_at <= $1)
    and not exists (select 1 from webhook_deliveries e
                    where e.message_id = d.message_id and e.status = 'pending' and e.id < d.id)
  order by d.next_attempt_at, d.id
  limit $2${lock}`;
const DUE = statement(dueText(''));
const DUE_SKIP_LOCKED = statement(dueText(' for update skip locked'));

interface LeasedRow {
  id: string; account_id: string; message_id: string | null; type: string; payload: string; attempts: number; created_at: number;
}

const LEASE = statementPerCount((count) => `
  update webhook_deliveries set lease_owner = $1, lease_expires_at = $2
  where id in (${placeholders(3, count)})
  returning id, account_id, message_id, type, payload, attempts, created_at`);

/** Releases every delivery lease (see DialectCapabilities.singleServerProcess); returns how many were held. */
export function releaseAllDeliveryLeases(db: Db): Promise<number> {
  return execute(db, RELEASE_ALL, []);
}

const RELEASE_ALL = statement('update webhook_deliveries set lease_owner = null, lease_expires_at = null where lease_owner is not null');
