import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { findAccount } from '../../src/store/accounts.ts';
import { openStore } from '../../src/store/dialect.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';

test('migration 0024 leaves every existing account\'s allow-list binding keys and sessions, as before it', async (t) => {
  const { db } = openStore('sqlite::memory:');
  t.after(() => db.destroy());
  await migrateToLatest(db);
  // The store as the release before 0024 left it, with an account whose list was set then.
  await sql`delete from kysely_migration where name = '0024-allow-list-applies-to'`.execute(db);
  await sql`alter table accounts drop column allow_list_applies_to`.execute(db);
  await sql`insert into accounts (id, name, active, messages_left, balance, whatsapp_price, rate_limit_per_second, ip_allow_list, email_enabled, sms_enabled,
    whatsapp_enabled, webhook_url, track_opens, track_clicks, created_at, updated_at)
    values ('a1', 'older', 1, 0, 0, 0, 2, '["198.51.100.0/24"]', 1, 1, 1, null, 1, 1, 0, 0)`.execute(db);

  const applied = await migrateToLatest(db);
  assert.deepStrictEqual(applied.map((m) => m.name), ['0024-allow-list-applies-to']);
  const account = await findAccount(db, 'a1');
  assert.deepStrictEqual([account?.ipAllowList, account?.allowListAppliesTo], [['198.51.100.0/24'], 'all']);
});
