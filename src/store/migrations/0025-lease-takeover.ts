import type { Kysely } from 'kysely';

// Fast takeover (store/lease-takeover.ts): a process whose heartbeat has stopped loses its
// leases once, at the time written here; a heartbeat that comes back clears it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('processes').addColumn('leases_released_at', 'bigint').execute();
}
