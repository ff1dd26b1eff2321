import { existsSync } from 'node:fs';
import { backupSqlite } from './sqlite-files.ts';

// `herald backup`: a SQLite store is copied by herald itself, online (store/sqlite-files.ts);
// a PostgreSQL database is the server's to dump, with its own tool, so herald names the
// command instead of half-doing it.

export type BackupOutcome =
  | { readonly kind: 'copied'; readonly file: string; readonly pages: number }
  /** No database file where HERALD_DATABASE_URL points: nothing is created there. */
  | { readonly kind: 'no-store'; readonly location: string }
  | { readonly kind: 'use-pg-dump'; readonly command: string };

/** Backs up the store of `databaseUrl` into `file`, writing `settings` into the copy; on PostgreSQL, the pg_dump line to run. */
export async function backupStore(databaseUrl: string, file: string, settings: Readonly<Record<string, string>>): Promise<BackupOutcome> {
  if (databaseUrl.startsWith('sqlite:')) {
    const location = databaseUrl.slice('sqlite:'.length);
    if (location === ':memory:' || !existsSync(location)) return { kind: 'no-store', location };
    return { kind: 'copied', file, pages: await backupSqlite(location, file, settings) };
  }
  return { kind: 'use-pg-dump', command: pgDumpCommand(databaseUrl, file) };
}

const quote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * The pg_dump line for herald's schema of the database: custom format (pg_restore
 * reads it), the password left to PGPASSWORD or ~/.pgpass rather than printed.
 */
export function pgDumpCommand(databaseUrl: string, file: string): string {
  const url = new URL(databaseUrl);
  const schema = /search_path=([^\s,]+)/.exec(url.searchParams.get('options') ?? '')?.[1];
  url.password = '';
  url.searchParams.delete('options');
  return ['pg_dump', '--format=custom', `--file=${quote(file)}`, ...(schema === undefined ? [] : [`--schema=${quote(schema)}`]), quote(url.href)].join(' ');
}
