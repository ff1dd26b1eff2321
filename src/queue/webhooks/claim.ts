import type { Db, Tx } from '../../store/database.ts';
import type { DialectCapabilities } from '../../store/dialect.ts';
import { execute, placeholders, queryRows, statement, statementPerCount } from '../../store/prepared-statement.ts';
import { DUE_DELIVERIES } from './due-deliveries.ts';
import { leaseDueInOne, type LeasedDeliveryRow } from './postgres-step.ts';

export interface ClaimedDelivery {
  readonly id: string;
  readonly accountId: string;
  /** null: the account's first endpoint. */
  readonly endpointId: string | null;
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
 * Head of line per message and endpoint: a delivery is due only when no earlier (by id:
 * event ids are time-ordered) delivery of the same message to the same endpoint is still pending — waiting for its
 * next slot or in flight — so a message's events reach the receiver in the order they
 * happened. Test events (no message) never wait on anything. On SQLite two statements
 * rather than `UPDATE … WHERE id IN (SELECT …)`, the ids in hand going straight through
 * the primary key, atomic under its write lock (BEGIN IMMEDIATE). On PostgreSQL one
 * statement, one round trip: the pick in a MATERIALIZED CTE (the plain `IN (SELECT …)`
 * form was planned as a scan of the whole table), its rows locked SKIP LOCKED so
 * concurrent dispatchers pass each other's rows (postgres-step.ts). Call it in a
 * transaction (record.ts recordAndClaim does).
 */
export async function claimDueDeliveries(
  tx: Tx,
  capabilities: DialectCapabilities,
  lease: { owner: string; now: number; leaseMs: number; limit: number },
): Promise<ClaimedDelivery[]> {
  const rows = capabilities.skipLocked ? await leaseDueInOne(tx, lease) : await leaseDue(tx, lease);
  return rows
    .map((row) => ({
      id: row.id, accountId: row.account_id, endpointId: row.endpoint_id, messageId: row.message_id, type: row.type, payload: row.payload,
      attempts: Number(row.attempts), createdAt: Number(row.created_at),
    }))
    // RETURNING has no order of its own; deliveries start in id order.
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

async function leaseDue(tx: Tx, { owner, now, leaseMs, limit }: { owner: string; now: number; leaseMs: number; limit: number }): Promise<LeasedDeliveryRow[]> {
  const due = await queryRows<{ id: string }>(tx, DUE, [now, limit]);
  if (due.length === 0) return [];
  return queryRows<LeasedDeliveryRow>(tx, LEASE(due.length), [owner, now + leaseMs, ...due.map((d) => d.id)]);
}

const DUE = statement(DUE_DELIVERIES);

const LEASE = statementPerCount((count) => `
  update webhook_deliveries set lease_owner = $1, lease_expires_at = $2
  where id in (${placeholders(3, count)})
  returning id, account_id, endpoint_id, message_id, type, payload, attempts, created_at`);

/** Releases every delivery lease (see DialectCapabilities.singleServerProcess); returns how many were held. */
export function releaseAllDeliveryLeases(db: Db): Promise<number> {
  return execute(db, RELEASE_ALL, []);
}

const RELEASE_ALL = statement('update webhook_deliveries set lease_owner = null, lease_expires_at = null where lease_owner is not null');
