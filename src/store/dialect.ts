// The storage engines as herald opens them: SQLite (store/sqlite/connection.ts) and
// PostgreSQL (store/postgres/connection.ts), each a Kysely dialect whose adapter carries
// what herald does its own way there (store/engine.ts). Everything else in store/ goes
// through Kysely (its builder, or prepared-statement.ts on the hot paths) and reads
// the capability flags (opened-store.ts).
import type { Kysely } from 'kysely';
import type { Database } from './database.ts';
import { engineOf } from './engine.ts';
import type { OpenedStore, StoreOptions } from './opened-store.ts';
import type { QuerySql } from './query-sql.ts';
import { openPostgres } from './postgres/connection.ts';
import { openSqlite } from './sqlite/connection.ts';

export type { DialectCapabilities, DirectSqlite, OpenedStore, StoreOptions } from './opened-store.ts';

/** Opens the store named by HERALD_DATABASE_URL (validated by config.ts). */
export function openStore(databaseUrl: string, options: StoreOptions = {}): OpenedStore {
  if (databaseUrl.startsWith('sqlite:')) return openSqlite(databaseUrl.slice('sqlite:'.length), options.repeat);
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) return openPostgres(databaseUrl, options);
  throw new Error('unsupported database URL: expected sqlite:<path> or postgres://');
}

/** The engine's JSON and text operations (store/query-sql.ts), for queries built on `db`. */
export function querySql(db: Kysely<Database>): QuerySql {
  return engineOf(db).querySql;
}
