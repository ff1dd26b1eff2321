import type { Selectable } from 'kysely';
import type { CampaignsTable, Executor } from '../../store/database.ts';
import type { DialectCapabilities } from '../../store/dialect.ts';
import { toCampaign, type Campaign } from '../../store/campaigns.ts';
import { execute, queryRows, statement } from '../../store/prepared-statement.ts';
import { leaseStatement } from '../skip-locked.ts';

// The campaign queue's leases: a runner (queue/campaigns/campaign-runner.ts) holds a
// campaign under lease_owner/lease_expires_at while it makes its batches; each batch is
// conditioned on that lease (store/campaigns.ts recordBatch). A runner that died leaves
// its lease, which runs out (or is taken over with its heartbeat, store/lease-takeover.ts).

const CLAIM = leaseStatement((lock) => `
  update campaigns set lease_owner = $1, lease_expires_at = $2
  where id = (select id from campaigns
              where due_at <= $3 and status in ('scheduled', 'running') and (lease_owner is null or lease_expires_at <= $3)
              order by due_at limit 1${lock})
  returning *`);

/**
 * Leases the campaign due first (SQL above): on PostgreSQL SKIP LOCKED lets several
 * runners pass each other; a runner that died leaves its lease, which runs out after
 * `leaseMs` and the campaign is due again for whoever claims next.
 */
export async function claimDueCampaign(db: Executor, capabilities: DialectCapabilities, owner: string, now: number, leaseMs: number): Promise<Campaign | undefined> {
  const [row] = await queryRows<Selectable<CampaignsTable>>(db, CLAIM(capabilities), [owner, now + leaseMs, now]);
  return row && toCampaign(row);
}

/** Lets go of the campaign, to be looked at again at `dueAt` (null: only when someone changes it). */
export async function releaseCampaign(db: Executor, id: string, owner: string, dueAt: number | null): Promise<void> {
  await execute(db, RELEASE, [dueAt, id, owner]);
}

const RELEASE = statement('update campaigns set lease_owner = null, lease_expires_at = null, due_at = $1 where id = $2 and lease_owner = $3');

/** Lets go of a campaign someone paused or cancelled under the runner: its due time is the move's. */
export async function releaseLease(db: Executor, id: string, owner: string): Promise<void> {
  await execute(db, RELEASE_LEASE, [id, owner]);
}

const RELEASE_LEASE = statement('update campaigns set lease_owner = null, lease_expires_at = null where id = $1 and lease_owner = $2');

/** Lets go of every lease (embedded SQLite at start: their holders belonged to a previous run). */
export async function releaseAllCampaigns(db: Executor): Promise<number> {
  const result = await db.updateTable('campaigns').set({ lease_owner: null, lease_expires_at: null }).where('lease_owner', 'is not', null).executeTakeFirst();
  return Number(result.numUpdatedRows);
}
