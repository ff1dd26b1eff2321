// The SQLite store's files are readable by the service's user only: they hold DKIM
// private keys, API key hashes and every message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/dialect.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';

const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8);

test('a new data folder is created 0700, and the database with its -wal and -shm files 0600', async (t) => {
  const parent = mkdtempSync(join(tmpdir(), 'herald-modes-'));
  t.after(() => rmSync(parent, { recursive: true, force: true }));
  const data = join(parent, 'data');
  const { db } = openStore(`sqlite:${join(data, 'herald.db')}`);
  t.after(() => db.destroy());
  await migrateToLatest(db);
  await db.insertInto('settings').values({ key: 'probe', value: '1' }).execute();
  assert.deepStrictEqual(
    [mode(data), mode(join(data, 'herald.db')), mode(join(data, 'herald.db-wal')), mode(join(data, 'herald.db-shm'))],
    ['700', '600', '600', '600'],
  );
});
