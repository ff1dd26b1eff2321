// Migration 0017: account names unique without regard to case. Names that already
// clash are renamed, the oldest account keeping its own, before the index is built.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { up } from '../../src/store/migrations/0017-unique-account-names.ts';
import { insertAccount } from '../../src/store/accounts.ts';
import { startService } from '../support/service.ts';

test('existing clashing names are renamed "(2)", "(3)", the oldest keeps its name, and the index then refuses a clash', async (t) => {
  const service = await startService(t);
  const db = service.deps.db;
  // The store as it was before 0017: no index, and clashing names in it.
  await sql`drop index accounts_name_unique`.execute(db);
  const ids = ['01000000-0000-7000-8000-000000000001', '01000000-0000-7000-8000-000000000002', '01000000-0000-7000-8000-000000000003', '01000000-0000-7000-8000-000000000004'];
  await insertAccount(db, ids[0] ?? '', 1, { name: 'Acme' });
  await insertAccount(db, ids[1] ?? '', 2, { name: 'acme' });
  await insertAccount(db, ids[2] ?? '', 3, { name: 'acme (2)' });
  await insertAccount(db, ids[3] ?? '', 4, { name: 'ACME' });
  await up(db as never);
  const rows = await db.selectFrom('accounts').select(['id', 'name']).orderBy('id').execute();
  assert.deepStrictEqual(rows.map((r) => r.name), ['Acme', 'acme (3)', 'acme (2)', 'ACME (4)']);
  await assert.rejects(insertAccount(db, '01000000-0000-7000-8000-000000000005', 5, { name: 'ACME (4)' }));
});
