import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { UsageError, type DatabaseChoice } from './common.ts';
import { withClient } from '../../test/support/postgres.ts';

// The stores herald is benchmarked on: a SQLite file in a temporary directory always,
// and PostgreSQL when TEST_POSTGRES_URL names a server. Each herald run gets a store
// of its own, empty, that herald migrates itself (as on a first start) and that is
// removed after the run: a directory, or a database `herald_bench_<time>_<random>`.

export type DatabaseKind = 'sqlite' | 'postgres';

export interface BenchDatabase {
  readonly kind: DatabaseKind;
  /** HERALD_DATABASE_URL of the herald child. */
  readonly url: string;
  /** What the figures' conditions say about the store. */
  readonly description: string;
  /** Removes the store; call after the herald child using it has closed. */
  drop(): Promise<void>;
}

const POSTGRES_PREFIX = 'herald_bench_';
/** A database left by a run that died is dropped by the next run after this long. */
const STALE_AFTER_MS = 3_600_000;

/** The stores this run covers: `--db all` is SQLite, plus PostgreSQL when TEST_POSTGRES_URL is set. */
export function databaseKinds(choice: DatabaseChoice): DatabaseKind[] {
  const postgres = process.env.TEST_POSTGRES_URL;
  if (choice === 'postgres' && (postgres === undefined || postgres === '')) throw new UsageError('--db postgres needs TEST_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432/test)');
  if (choice === 'sqlite') return ['sqlite'];
  if (choice === 'postgres') return ['postgres'];
  return postgres === undefined || postgres === '' ? ['sqlite'] : ['sqlite', 'postgres'];
}

export async function freshDatabase(kind: DatabaseKind): Promise<BenchDatabase> {
  if (kind === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'herald-bench-'));
    return {
      kind,
      url: `sqlite:${join(dir, 'herald.db')}`,
      description: 'sqlite file in os.tmpdir (WAL, synchronous=FULL)',
      drop: () => rm(dir, { recursive: true, force: true }),
    };
  }
  const base = process.env.TEST_POSTGRES_URL;
  if (base === undefined || base === '') throw new UsageError('PostgreSQL runs need TEST_POSTGRES_URL');
  const name = `${POSTGRES_PREFIX}${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const settings = await withClient(base, async (client) => {
    await dropStaleDatabases(client);
    await client.query(`create database ${client.escapeIdentifier(name)}`);
    const show = async (setting: string): Promise<string> => String((await client.query<Record<string, string>>(`show ${setting}`)).rows[0]?.[setting]);
    return { version: await show('server_version'), fsync: await show('fsync'), synchronousCommit: await show('synchronous_commit') };
  });
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    kind,
    url: url.href,
    description: `postgresql ${settings.version.split(' ')[0]} on ${url.hostname} (fresh database; fsync=${settings.fsync}, synchronous_commit=${settings.synchronousCommit})`,
    drop: () => withClient(base, async (client) => {
      // WITH (FORCE): a connection herald left behind must not keep the database alive.
      await client.query(`drop database if exists ${client.escapeIdentifier(name)} with (force)`);
    }),
  };
}

/** Databases of earlier runs that died before their clean-up. */
async function dropStaleDatabases(client: pg.Client): Promise<void> {
  const { rows } = await client.query<{ datname: string }>(`select datname from pg_database where datname like '${POSTGRES_PREFIX}%'`);
  for (const { datname } of rows) {
    const created = parseInt(datname.slice(POSTGRES_PREFIX.length).split('_')[0] ?? '', 36);
    if (!Number.isFinite(created) || Date.now() - created < STALE_AFTER_MS) continue;
    await client.query(`drop database if exists ${client.escapeIdentifier(datname)} with (force)`);
  }
}
