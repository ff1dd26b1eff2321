import type { LaterStep } from '../../domain/simulator.ts';
import type { Db, Executor, Tx } from '../../store/database.ts';
import type { DialectCapabilities } from '../../store/dialect.ts';
import type { SimulatedReport } from '../../store/simulated-reports.ts';
import { execute, placeholders, queryRows, statement, statementPerCount } from '../../store/prepared-statement.ts';
import { leaseStatement } from '../skip-locked.ts';

// The simulator reports' queue (queue/simulated-reports/simulated-report-queue.ts): due
// reports leased head of line per message, each removed under its lease in the unit of
// work that records it, every lease released at a single server's start.

/**
 * Leases up to `limit` due reports to `owner` until `now + leaseMs`. Head of line per
 * message, as the webhook queue: a report is due only when no earlier report of its
 * message is left, so `opened` is never recorded before `delivered` however late the
 * queue runs. Call in a transaction (SQLite's write lock, or PostgreSQL's SKIP LOCKED
 * row locks, keep DUE and LEASE together).
 */
export async function claimDueReports(
  tx: Tx,
  capabilities: DialectCapabilities,
  lease: { owner: string; now: number; leaseMs: number; limit: number },
): Promise<SimulatedReport[]> {
  const { owner, now, leaseMs, limit } = lease;
  const due = await queryRows<{ id: string }>(tx, DUE(capabilities), [now, limit]);
  if (due.length === 0) return [];
  const rows = await queryRows<{ id: string; message_id: string; account_id: string; step: string }>(
    tx, LEASE(due.length), [owner, now + leaseMs, ...due.map((d) => d.id)]);
  return rows.map((row) => ({ id: row.id, messageId: row.message_id, accountId: row.account_id, step: row.step as LaterStep }));
}

const DUE = leaseStatement((lock) => `
  select r.id from simulated_reports r
  where r.due_at <= $1 and (r.lease_expires_at is null or r.lease_expires_at <= $1)
    and not exists (select 1 from simulated_reports e where e.message_id = r.message_id and e.id < r.id)
  order by r.due_at, r.id
  limit $2${lock}`);

const LEASE = statementPerCount((count) => `
  update simulated_reports set lease_owner = $1, lease_expires_at = $2
  where id in (${placeholders(3, count)})
  returning id, message_id, account_id, step`);

/** Removes a report this owner still holds; false: the lease was lost (another process records it). */
export async function removeLeasedReport(tx: Executor, id: string, owner: string): Promise<boolean> {
  return (await execute(tx, REMOVE, [id, owner])) === 1;
}

const REMOVE = statement('delete from simulated_reports where id = $1 and lease_owner = $2');

/** Releases every report lease (a single server process at start); returns how many were held. */
export function releaseAllReportLeases(db: Db): Promise<number> {
  return execute(db, RELEASE_ALL, []);
}

const RELEASE_ALL = statement('update simulated_reports set lease_owner = null, lease_expires_at = null where lease_owner is not null');
