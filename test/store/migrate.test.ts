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
