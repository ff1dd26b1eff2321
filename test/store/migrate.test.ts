import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { openStore } from '../../src/store/dialect.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';

test('a store that ran a later migration (0009) before an earlier one arrived (0006) takes the earlier one on its next start', async (t) => {
  const { db } = openStore('sqlite::memory:');
  t.after(() => db.destroy());
  await migrateToLatest(db);
  // The store as a release without 0006 left it: 0009 applied, 0006 never heard of.
  await sql`delete from kysely_migration where name = '0006-mime-pieces'`.execute(db);
  await sql`drop table mime_pieces`.execute(db);
  await sql`alter table captures drop column layout`.execute(db);
  await sql`alter table certificates drop column layout`.execute(db);

  await migrateToLatest(db);
  const { rows } = await sql<{ name: string }>`select name from kysely_migration where name in ('0006-mime-pieces', '0009-audience') order by name`.execute(db);
  assert.deepStrictEqual(rows.map((r) => r.name), ['0006-mime-pieces', '0009-audience']);
  const { rows: [table] } = await sql<{ n: number }>`select count(*) as n from mime_pieces`.execute(db);
  assert.equal(Number(table?.n), 0);
});

test('migration 0005 gives a secret to every account that has a webhook URL and none, and leaves the others alone', async (t) => {
  const { db } = openStore('sqlite::memory:');
  t.after(() => db.destroy());
  await migrateToLatest(db);
  // Rows as an older release left them: a URL set without a secret (the CLI's path made none).
  await sql`delete from kysely_migration where name = '0005-webhook-disabled'`.execute(db);
  await sql`alter table accounts drop column webhook_disabled_at`.execute(db);
  await sql`alter table accounts drop column webhook_disabled_reason`.execute(db);
  const columns = sql.raw(`id, name, active, messages_left, balance, whatsapp_price, rate_limit_per_second, ip_allow_list, email_enabled, sms_enabled,
    whatsapp_enabled, webhook_url, webhook_secret, track_opens, track_clicks, created_at, updated_at`);
  await sql`insert into accounts (${columns}) values
    ('a1', 'unsigned', 1, 0, 0, 0, 2, '[]', 1, 1, 1, 'https://hooks.example.com/a', null, 1, 1, 0, 0),
    ('a2', 'signed', 1, 0, 0, 0, 2, '[]', 1, 1, 1, 'https://hooks.example.com/b', 'whsec_kept', 1, 1, 0, 0),
    ('a3', 'no webhook', 1, 0, 0, 0, 2, '[]', 1, 1, 1, null, null, 1, 1, 0, 0)`.execute(db);

  await migrateToLatest(db);
  const rows = await db.selectFrom('accounts').select(['id', 'webhook_secret', 'webhook_disabled_at']).orderBy('id').execute();
  assert.match(rows[0]?.webhook_secret ?? '', /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.deepStrictEqual(rows.slice(1).map((r) => [r.id, r.webhook_secret]), [['a2', 'whsec_kept'], ['a3', null]]);
  assert.deepStrictEqual(rows.map((r) => r.webhook_disabled_at), [null, null, null]);
});
