import type { Tx } from '../../store/database.ts';
import { queryRows, statement } from '../../store/prepared-statement.ts';
import { DUE_DELIVERIES } from './due-deliveries.ts';

// PostgreSQL (capabilities.skipLocked): the dispatcher's claim in ONE statement where it
// took two, the due rows picked and leased by a data-modifying statement over a
// materialized CTE. The attempts' outcomes are recorded through the store's engine
// (store/postgres/webhook-attempts.ts). SQLite keeps claim.ts's separate statements.

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
