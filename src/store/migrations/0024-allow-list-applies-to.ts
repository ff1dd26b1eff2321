import type { Kysely } from 'kysely';

// Whom an account's IP allow-list binds (issue 19, item 6; docs/users-and-sessions.md):
// `all`, API keys and the web application's sessions, as every account did before this
// column; or `keys`, API keys only, so people sign in from wherever they are. Existing
// accounts keep `all`: turning it to `keys` for them would open what an owner closed.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('allow_list_applies_to', 'text', (c) => c.notNull().defaultTo('all')).execute();
}
