import type { Tx } from '../../store/database.ts';
import { queryRows, statement } from '../../store/prepared-statement.ts';
import { DUE_DELIVERIES } from './due-deliveries.ts';

// PostgreSQL (capabilities.skipLocked): the dispatcher's claim in ONE statement where it
// took two, the due rows picked and leased by a data-modifying statement over a
// materialized CTE. The attempts' outcomes are recorded through the store's engine
// (store/postgres/webhook-attempts.ts). SQLite keeps claim.ts's separate statements.

export interface LeasedDeliveryRow {
  id: string; account_id: string; endpoint_id: string | null; message_id: string | null; type: string; payload: string; attempts: number; created_at: number;
}

/**
 * claim.ts's DUE and LEASE as one statement. The due rows are picked (and locked, SKIP
 * LOCKED) in a MATERIALIZED CTE, so the UPDATE joins its few ids through the primary key
 * rather than planning the pick into a scan of the table.
 *
 * The pick is planned with sorting off (SORT_OFF, one round trip, undone by the claim
 * itself): the due index read in its order, stopping at the limit. A plan made while few
 * deliveries were pending (statistics from a quiet hour, or none yet) read and sorted
 * every pending row instead: 93 ms per claim of 128 from a backlog of 10,000 (bench
 * webhooks, auto_explain), a cost that grows with the backlog a receiver's outage leaves.
 */
export async function leaseDueInOne(tx: Tx, lease: { owner: string; now: number; leaseMs: number; limit: number }): Promise<LeasedDeliveryRow[]> {
  const [sorting] = await queryRows<{ was: string }>(tx, SORT_OFF, []);
  const rows = await queryRows<LeasedDeliveryRow | { id: null }>(tx, LEASE_DUE, [lease.now, lease.limit, lease.owner, lease.now + lease.leaseMs, sorting?.was ?? 'on']);
  return rows.filter((row): row is LeasedDeliveryRow => row.id !== null);
}

/** Sorting off until the end of the transaction or LEASE_DUE's restore; answers its setting before. */
export const SORT_OFF = statement(`
  with before as materialized (select current_setting('enable_sort') as was)
  select was, set_config('enable_sort', 'off', true) from before`);

// $5: enable_sort as it was, set again as the statement runs (after it was planned), so
// the rest of the transaction (other units of a group-committed batch) plans as before.
// The restore drives a LEFT JOIN: it runs when nothing is due too (one row of nulls).
export const LEASE_DUE = statement(`
  with due as materialized (${DUE_DELIVERIES}
    for update skip locked),
  leased as (update webhook_deliveries w set lease_owner = $3, lease_expires_at = $4
             from due
             where w.id = due.id
             returning w.id, w.account_id, w.endpoint_id, w.message_id, w.type, w.payload, w.attempts, w.created_at),
  restored as materialized (select set_config('enable_sort', $5, true))
  select leased.* from restored left join leased on true`);
