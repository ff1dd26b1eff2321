// The SQLite store's files are readable by the service's user only: they hold DKIM
// private keys, API key hashes and every message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../../src/store/dialect.ts';
import { migrateToLatest } from '../../../src/store/migrate.ts';
import { startService } from '../../support/service.ts';

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

test('store files others could read are tightened to 0600 at start, with one warning', { timeout: 30_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'herald-modes-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'herald.db');
  const old = new DatabaseSync(file);
  old.exec('PRAGMA journal_mode = WAL; create table t (x); insert into t values (1)');
  chmodSync(file, 0o644);
  chmodSync(`${file}-wal`, 0o644);
  const warnings: string[] = [];
  const onWarning = (warning: Error): void => void warnings.push(warning.message);
  process.on('warning', onWarning);
  t.after(() => process.off('warning', onWarning));
  await startService(t, { env: { HERALD_DATABASE_URL: `sqlite:${file}` } });
  old.close();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepStrictEqual([mode(file), mode(`${file}-wal`)], ['600', '600']);
  assert.deepStrictEqual(warnings.filter((w) => w.includes('0600')), [
    `herald: the store's files were readable by others and are now 0600: ${file} (was 0644), ${file}-wal (was 0644), ${file}-shm (was 0644)`,
  ]);
});
