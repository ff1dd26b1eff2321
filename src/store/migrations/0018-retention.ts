import type { Kysely } from 'kysely';

// The retention sweep (app/retention-sweep.ts) walks sends oldest first from where it
// stopped: (created_at, id) is its keyset, so each batch reads only the sends it purges.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('sends_created').on('sends').columns(['created_at', 'id']).execute();
}
