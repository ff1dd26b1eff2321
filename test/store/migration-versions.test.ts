// Migrations as an operator meets them at a start (issue 21, item 5): each applied one
// is logged with its time, and a store that ran a migration this version does not have
// (a downgrade, another build) stops the start with one line and exit 78, for a
// supervisor not to restart it for ever. Real processes (`node src/main.ts serve`).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openStore } from '../../src/store/dialect.ts';
import { MIGRATION_NAMES, migrateToLatest } from '../../src/store/migrate.ts';
import { heraldEnv, runToEnd, type Run } from '../support/child-process.ts';
import { startHerald } from '../support/herald-process.ts';
import { freshSchema, TEST_POSTGRES_URL } from '../support/postgres.ts';

const TOKEN = 'q8Zr2LwT0pXe5VbN-test-only';
const LATEST = MIGRATION_NAMES.at(-1) ?? '';

function sqliteUrl(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'herald-migrations-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return `sqlite:${join(dir, 'herald.db')}`;
}

/** A migrated store with rows in its migration table that this version does not have. */
async function storeWithForeignMigrations(url: string, names: readonly string[]): Promise<void> {
  const { db } = openStore(url);
  try {
    await migrateToLatest(db);
    for (const name of names) await sql`insert into kysely_migration (name, timestamp) values (${name}, ${new Date().toISOString()})`.execute(db);
  } finally {
    await db.destroy();
  }
}

const serve = (url: string): Promise<Run> => runToEnd(process.execPath, ['src/main.ts', 'serve'], heraldEnv({
  HERALD_PORT: '0', HERALD_HOST: '127.0.0.1', HERALD_ADMIN_TOKEN: TOKEN, HERALD_LOG_LEVEL: 'info', HERALD_DATABASE_URL: url,
}));

test('a store migrated by a newer herald stops the start with one line naming the versions, and exit 78', async (t) => {
  const url = sqliteUrl(t);
  await storeWithForeignMigrations(url, ['9999-from-a-newer-herald']);
  const result = await serve(url);
  assert.deepStrictEqual({ code: result.code, stderr: result.stderr }, {
    code: 78,
    stderr: `herald: configuration error: HERALD_DATABASE_URL: the store was migrated by a newer herald (it holds migration 9999-from-a-newer-herald; this version's latest is ${LATEST}); run that version or a later one, or restore a backup taken before the upgrade\n`,
  });
  // Nothing listened and nothing was migrated: the refusal came first.
  assert.doesNotMatch(result.stdout, /Server listening|migration applied/);
});

test('a store holding a migration older than this version\'s latest that this version lacks is refused as another build\'s', async (t) => {
  const url = sqliteUrl(t);
  await storeWithForeignMigrations(url, ['0007-another-build', '9998-newer']);
  const result = await serve(url);
  assert.deepStrictEqual({ code: result.code, stderr: result.stderr }, {
    code: 78,
    stderr: `herald: configuration error: HERALD_DATABASE_URL: the store was migrated by another build of herald (it holds migrations 0007-another-build, 9998-newer; this version's latest is ${LATEST}); run the build that migrated it\n`,
  });
});

test('the CLI refuses such a store in the same words, and exit 78', async (t) => {
  const url = sqliteUrl(t);
  await storeWithForeignMigrations(url, ['9999-from-a-newer-herald']);
  const result = await runToEnd(process.execPath, ['src/cli/main.ts', 'accounts', 'list'], heraldEnv({ HERALD_DATABASE_URL: url }));
  assert.deepStrictEqual(result, {
    code: 78, stdout: '',
    stderr: `herald: configuration error: HERALD_DATABASE_URL: the store was migrated by a newer herald (it holds migration 9999-from-a-newer-herald; this version's latest is ${LATEST}); run that version or a later one, or restore a backup taken before the upgrade\n`,
  });
});

/** The `migration applied` lines of a JSON log, as [name, ms] pairs. */
function appliedLines(log: string): Array<[string, unknown]> {
  return log.split('\n').filter((line) => line.includes('"migration applied"'))
    .map((line) => JSON.parse(line) as { migration: string; ms: unknown })
    .map((line) => [line.migration, line.ms]);
}

test('a first start logs every migration it applies with its time, and the next start logs none', async (t) => {
  const url = sqliteUrl(t);
  const env = { HERALD_DATABASE_URL: url, HERALD_ADMIN_TOKEN: TOKEN };
  const first = await startHerald('all', env);
  await first.kill('SIGTERM');
  const applied = appliedLines(first.output());
  assert.deepStrictEqual(applied.map(([name]) => name), MIGRATION_NAMES);
  for (const [name, ms] of applied) assert.ok(Number.isInteger(ms) && (ms as number) >= 0, `${name}: ${String(ms)}`);

  const second = await startHerald('all', env);
  await second.kill('SIGTERM');
  assert.deepStrictEqual(appliedLines(second.output()), []);
  assert.deepStrictEqual([...first.errorLines(), ...second.errorLines()], []);
});

test('on PostgreSQL, a schema migrated by a newer herald is refused with the same line', { skip: TEST_POSTGRES_URL === undefined || TEST_POSTGRES_URL === '' ? 'TEST_POSTGRES_URL is not set' : false }, async (t) => {
  const schema = await freshSchema();
  t.after(() => schema.drop());
  await storeWithForeignMigrations(schema.url, ['9999-from-a-newer-herald']);
  const result = await serve(schema.url);
  assert.deepStrictEqual({ code: result.code, stderr: result.stderr }, {
    code: 78,
    stderr: `herald: configuration error: HERALD_DATABASE_URL: the store was migrated by a newer herald (it holds migration 9999-from-a-newer-herald; this version's latest is ${LATEST}); run that version or a later one, or restore a backup taken before the upgrade\n`,
  });
});
