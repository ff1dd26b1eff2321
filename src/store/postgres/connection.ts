import {
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  PostgresIntrospector,
  sql,
  type ColumnMetadata,
  type DatabaseIntrospector,
  type DatabaseMetadataOptions,
  type DialectAdapter,
  type PostgresPool,
  type PostgresPoolClient,
  type SchemaMetadata,
  type TableMetadata,
} from 'kysely';
import { DEFAULT_MIGRATION_LOCK_TABLE, DEFAULT_MIGRATION_TABLE } from 'kysely/migration';
import pg from 'pg';
import type { Database } from '../database.ts';
import type { OpenedStore, StoreOptions } from '../opened-store.ts';
import type { EngineAdapter } from '../engine.ts';
import { PostgresNotifier } from '../notify.ts';
import { preparedName } from '../prepared-statement.ts';
import { postgresBatchOperations } from './batch-operations.ts';
import { POSTGRES_QUERY_SQL } from './query-sql.ts';

// The scale-out store: pg's pool behind Kysely's PostgreSQL dialect, scoped to the
// connection's current schema, its hot statements prepared once per connection.

const INT8_OID = 20; // bigint: count(*), and every time and money column
const NUMERIC_OID = 1700; // sum(bigint), avg(...)

/**
 * pg returns bigint and numeric as strings, because they may exceed 2^53. herald's
 * bigints are epoch milliseconds and money in 1/10,000 units, far below that, and the
 * code reads them as numbers, as node:sqlite gives them. Set per pool, not on pg's
 * global parsers, so nothing else in the process is changed.
 */
const NUMBER_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) =>
    (oid === INT8_OID || oid === NUMERIC_OID) && format !== 'binary' ? Number : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * Parameters as SQLite takes them. Flags are integer 0/1 columns in both engines, so a
 * boolean is written as 0 or 1, as SQLite's adapter writes it. PostgreSQL text cannot
 * hold U+0000, which SQLite stores: it becomes U+FFFD (as a decoder renders what it
 * cannot represent), so a NUL in a peer's answer or a client's text never fails the
 * statement, and with it a whole delivery batch.
 */
function toPostgresValue(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string' && value.includes('\u0000')) return value.replaceAll('\u0000', '\uFFFD');
  return value;
}

/** The pg pool as Kysely's PostgresDialect takes it, with parameters mapped by toPostgresValue. */
function adaptPool(pool: pg.Pool): PostgresPool {
  // One wrapper per pooled connection, so Kysely recognises a connection it has seen.
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => ({
    get processID() { return (client as unknown as { processID?: number }).processID; },
    release: (destroy?: boolean) => client.release(destroy),
    query: ((text: unknown, parameters?: ReadonlyArray<unknown>) => {
      if (typeof text !== 'string') return client.query(text as pg.Submittable);
      const values = (parameters ?? []).map(toPostgresValue);
      // The hot paths' statements are prepared once per connection (parsed and planned once).
      const name = preparedName(text);
      return name === undefined ? client.query(text, values) : client.query({ name, text, values });
    }) as unknown as PostgresPoolClient['query'],
  });
  return {
    options: pool.options,
    end: () => pool.end(),
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) {
        // The pool listens for errors of idle connections only. A connection handed out
        // that the server drops (a restart: ECONNRESET, or 'terminating connection due to
        // administrator command' between two statements of a transaction) emits 'error'
        // with nobody listening, which ends the process. The statement in flight fails on
        // its own, its unit of work with it (and is retried on a new connection); the
        // broken connection is destroyed when it is released (pg-pool: not queryable).
        client.on('error', () => {});
        wrappers.set(client, (wrapper = wrap(client)));
      }
      return wrapper;
    },
  };
}

// Longest wait for a connection, new or pooled: a request waits this long at most before its 503.
const POOL_CONNECT_TIMEOUT_MS = 5000;

// As HERALD_DATABASE_POOL_SIZE defaults to; for callers that open a store without the config.
const DEFAULT_POOL_SIZE = 10;

interface ColumnRow {
  table: string; kind: string; schema: string; column: string; type: string; type_schema: string;
  not_null: boolean; has_default: boolean; serial: string | null; comment: string | null;
}

/**
 * Kysely's PostgreSQL introspector reads every schema of the database, through
 * functions that fail when another schema is dropped meanwhile, and the Migrator asks
 * it whether its own tables exist (by name, in any schema). herald's store is the
 * connection's current schema (the first of search_path), so introspection reads that
 * schema only: installations and test runs in other schemas of the same database keep
 * their own migration state, and dropping one never fails a migration of another.
 */
class CurrentSchemaIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<unknown>;
  constructor(db: Kysely<unknown>) {
    this.#db = db;
  }

  getSchemas(): Promise<SchemaMetadata[]> {
    return new PostgresIntrospector(this.#db).getSchemas();
  }

  async getTables(options: DatabaseMetadataOptions = { withInternalKyselyTables: false }): Promise<TableMetadata[]> {
    const { rows } = await sql<ColumnRow>`
      select c.relname as "table", c.relkind as kind, ns.nspname as schema, a.attname as "column",
             typ.typname as type, tns.nspname as type_schema, a.attnotnull as not_null, a.atthasdef as has_default,
             pg_get_serial_sequence(quote_ident(ns.nspname) || '.' || quote_ident(c.relname), a.attname) as serial,
             col_description(a.attrelid, a.attnum) as comment
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
      join pg_catalog.pg_attribute a on a.attrelid = c.oid
      join pg_catalog.pg_type typ on typ.oid = a.atttypid
      join pg_catalog.pg_namespace tns on tns.oid = typ.typnamespace
      where ns.nspname = current_schema() and c.relkind in ('r', 'v', 'p', 'f') and a.attnum >= 0 and not a.attisdropped
      order by c.relname, a.attnum`.execute(this.#db);
    const tables = new Map<string, TableMetadata & { columns: ColumnMetadata[] }>();
    for (const row of rows) {
      if (!options.withInternalKyselyTables && (row.table === DEFAULT_MIGRATION_TABLE || row.table === DEFAULT_MIGRATION_LOCK_TABLE)) continue;
      let table = tables.get(row.table);
      if (!table) {
        table = { name: row.table, schema: row.schema, isView: row.kind === 'v', isForeign: row.kind === 'f', columns: [] };
        tables.set(row.table, table);
      }
      table.columns.push({
        name: row.column, dataType: row.type, dataTypeSchema: row.type_schema, isNullable: !row.not_null,
        hasDefaultValue: row.has_default, isAutoIncrementing: row.serial !== null, ...(row.comment === null ? {} : { comment: row.comment }),
      });
    }
    return [...tables.values()];
  }
}

// An advisory lock of two int4 keys: this class, and the hash of the schema's name.
const MIGRATION_LOCK_CLASS = 0x68657264; // 'herd'

/**
 * Kysely locks every migration in the database behind one advisory lock; herald's
 * migrations concern only the current schema, so their lock is the schema's own:
 * processes migrating one schema wait for each other, other schemas go on.
 */
class SchemaLockPostgresAdapter extends PostgresAdapter implements EngineAdapter {
  // What herald does its own way on PostgreSQL (store/engine.ts).
  readonly batchOperations = postgresBatchOperations;
  readonly querySql = POSTGRES_QUERY_SQL;

  override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`select pg_advisory_lock(${sql.lit(MIGRATION_LOCK_CLASS)}, hashtext(current_schema()))`.execute(db);
  }

  override async releaseMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`select pg_advisory_unlock(${sql.lit(MIGRATION_LOCK_CLASS)}, hashtext(current_schema()))`.execute(db);
  }
}

/** PostgreSQL scoped to the connection's current schema: see CurrentSchemaIntrospector and SchemaLockPostgresAdapter. */
class SchemaScopedPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }

  override createAdapter(): DialectAdapter {
    return new SchemaLockPostgresAdapter();
  }
}

export function openPostgres(url: string, options: StoreOptions): OpenedStore {
  const config: pg.PoolConfig = {
    connectionString: url, max: options.poolSize ?? DEFAULT_POOL_SIZE, types: NUMBER_TYPES,
    // A server that does not answer (or a pool with no connection free) fails the unit of
    // work within this bound instead of holding it for ever: the request is answered 503.
    connectionTimeoutMillis: POOL_CONNECT_TIMEOUT_MS,
  };
  const pool = new pg.Pool(config);
  // An idle connection that the server closes (restart, failover) is dropped by the
  // pool and replaced on the next query; without a listener its error would end the process.
  pool.on('error', () => {});
  const heartbeatPool = new pg.Pool({ ...config, max: 1, application_name: 'herald-heartbeat' });
  heartbeatPool.on('error', () => {});
  const heartbeatDb = new Kysely<Database>({ dialect: new SchemaScopedPostgresDialect({ pool: adaptPool(heartbeatPool) }) });
  return {
    db: new Kysely<Database>({ dialect: new SchemaScopedPostgresDialect({ pool: adaptPool(pool) }) }),
    capabilities: { skipLocked: true, singleServerProcess: false },
    heartbeat: { db: heartbeatDb, close: () => heartbeatDb.destroy() },
    // The listening connection is its own client, never one of the pool's.
    notifier: new PostgresNotifier(pool, () => new pg.Client({ ...config, application_name: 'herald-listener' })),
  };
}

// ---- Lock waits lost (the group committer, store/group-commit.ts) ----

// SQLSTATEs of a statement that gave up a lock: lock_not_available (lock_timeout),
// deadlock_detected (chosen as the victim), serialization_failure.
const LOCK_LOSSES = new Set(['55P03', '40P01', '40001']);

/** Whether a PostgreSQL error says the statement lost a lock wait: run again, it may pass. */
export function isPostgresLockLoss(error: unknown): boolean {
  return error instanceof Error && LOCK_LOSSES.has((error as { code?: unknown }).code as string);
}
