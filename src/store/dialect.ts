// The one place where the storage engines differ. Everything else in store/ and
// outbox/ goes through Kysely (its builder, or prepared-statement.ts on the hot paths)
// and reads the capability flags below.
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { open as openFile, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import {
  CompiledQuery,
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  PostgresIntrospector,
  SqliteDialect,
  SqliteDriver,
  sql,
  type ColumnMetadata,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type DatabaseMetadataOptions,
  type DialectAdapter,
  type Driver,
  type Expression,
  type RawBuilder,
  type SqlBool,
  type PostgresPool,
  type PostgresPoolClient,
  type SchemaMetadata,
  type SqliteDatabase,
  type SqliteStatement,
  type TableMetadata,
} from 'kysely';
import { DEFAULT_MIGRATION_LOCK_TABLE, DEFAULT_MIGRATION_TABLE } from 'kysely/migration';
import pg from 'pg';
import type { Database } from './database.ts';
import { LOCAL_NOTIFIER, PostgresNotifier, type Notifier } from './notify.ts';
import { preparedName, toSqliteValue, type SqliteStatements } from './prepared-statement.ts';
import { holdServingLock, type ServingLock } from './serving-lock.ts';
import { startWalCheckpointer, type RepeatEvery, type WalCheckpointer } from './wal-checkpointer.ts';
import { tightenStoreFiles } from './sqlite-files.ts';

export interface DialectCapabilities {
  /** `FOR UPDATE SKIP LOCKED` on outbox claims (PostgreSQL); SQLite serialises writers instead. */
  readonly skipLocked: boolean;
  /**
   * One server process owns the store (embedded SQLite): any lease found at start
   * belongs to a previous run that died, and is released at once instead of
   * waiting for it to expire. PostgreSQL, shared by many workers, waits.
   */
  readonly singleServerProcess: boolean;
}

export interface OpenedStore {
  readonly db: Kysely<Database>;
  readonly capabilities: DialectCapabilities;
  /** Wake-ups across processes (PostgreSQL LISTEN/NOTIFY); SQLite has one server process and needs none. */
  readonly notifier: Notifier;
  /**
   * SQLite's one connection, for the group committer's transactions to run prepared
   * statements on directly (store/prepared-statement.ts); absent on PostgreSQL.
   */
  readonly direct?: DirectSqlite;
  /**
   * A SQLite file's serving lock (store/serving-lock.ts), for the process that runs the
   * loops; throws ServingLockHeld when another process holds it. Absent on PostgreSQL
   * (many processes share it) and for `:memory:` (nobody else can open it).
   */
  readonly lockForServing?: () => ServingLock;
  /**
   * The heartbeat's connection (app/process-heartbeat.ts): on PostgreSQL a pool of one of
   * its own, so a beat says whether the process lives, not how long the main pool's queue
   * is under a burst of deliveries; on SQLite the one connection. close() ends it.
   */
  readonly heartbeat: { readonly db: Kysely<Database>; close(): Promise<void> };
}

/** SQLite's one connection, for the group committer (store/group-commit.ts). */
export interface DirectSqlite extends SqliteStatements {
  /**
   * fdatasync of the WAL file on libuv's thread pool: every commit made before the call
   * is on disk when it resolves (a commit made with `synchronous = NORMAL` is written
   * to the WAL but not synced). On Linux an fsync covers the file, whatever descriptor
   * wrote to it. Nothing to do for `:memory:`.
   */
  syncWal(): Promise<void>;
  /**
   * Undefined when a batch may start; otherwise resolves when it may: the WAL has grown
   * long and waits for the checkpointer to copy all of it (store/wal-checkpointer.ts).
   */
  beforeBatch(): Promise<void> | undefined;
}

export interface StoreOptions {
  /** Connections of the PostgreSQL pool (HERALD_DATABASE_POOL_SIZE); SQLite has one. */
  readonly poolSize?: number;
  /** The engine's timer for the SQLite checkpoint thread (service.ts); without it a file store checkpoints on its connection, as SQLite does by default. */
  readonly repeat?: RepeatEvery;
}

// Prepared statements are cached per SQL text: Kysely compiles the same few
// statements over and over, and preparing is a measurable share of a small query.
const STATEMENT_CACHE_SIZE = 512;

/** Presents node:sqlite's DatabaseSync as the better-sqlite3 shape Kysely's SqliteDialect expects. */
class NodeSqliteDatabase implements SqliteDatabase, SqliteStatements {
  readonly #db: DatabaseSync;
  readonly #onClose: () => void;
  readonly #statements = new Map<string, { raw: StatementSync; adapted: SqliteStatement }>();

  constructor(db: DatabaseSync, onClose: () => void) {
    this.#db = db;
    this.#onClose = onClose;
  }

  prepare(sql: string): SqliteStatement {
    return this.#cached(sql).adapted;
  }

  /** The raw statement, for prepared statements run straight on the connection (store/prepared-statement.ts). */
  statement(sql: string): StatementSync {
    return this.#cached(sql).raw;
  }

  #cached(sql: string): { raw: StatementSync; adapted: SqliteStatement } {
    const cached = this.#statements.get(sql);
    if (cached) return cached;
    const raw = this.#db.prepare(sql);
    const entry = { raw, adapted: adaptStatement(raw) };
    if (this.#statements.size >= STATEMENT_CACHE_SIZE) {
      const oldest = this.#statements.keys().next().value;
      if (oldest !== undefined) this.#statements.delete(oldest);
    }
    this.#statements.set(sql, entry);
    return entry;
  }

  close(): void {
    this.#statements.clear();
    if (this.#db.isOpen) this.#db.close();
    this.#onClose();
  }
}

function adaptStatement(statement: StatementSync): SqliteStatement {
  // A statement returns rows when it has result columns (SELECT, or RETURNING).
  const reader = statement.columns().length > 0;
  const bind = (parameters: ReadonlyArray<unknown>) => parameters.map(toSqliteValue);
  return {
    reader,
    all: (parameters) => statement.all(...bind(parameters)),
    run: (parameters) => statement.run(...bind(parameters)),
    iterate: (parameters) => statement.iterate(...bind(parameters)),
  };
}

/**
 * SQLite's default `BEGIN` is deferred: a transaction that reads and then writes can
 * fail with SQLITE_BUSY when another process (the CLI) wrote in between. `BEGIN
 * IMMEDIATE` takes the write lock up front and waits on the busy timeout instead.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #open: () => SqliteDatabase;
  constructor(open: () => SqliteDatabase) {
    super({ database: async () => open() });
    this.#open = open;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver({ database: async () => this.#open() });
  }
}

/**
 * The database holds DKIM private keys, API key hashes and every message: its folder
 * is created 0700 and the file 0600, readable by the service's user only. SQLite gives
 * its -wal and -shm files the database file's mode, so they follow. An existing folder
 * keeps the mode the operator gave it; existing files others could read (a store made by
 * an older version, a restored copy) are tightened to 0600 with one warning.
 */
function createPrivately(location: string): void {
  mkdirSync(dirname(location), { recursive: true, mode: 0o700 });
  // 'a' creates the file if missing and never truncates; the mode applies only on creation.
  closeSync(openSync(location, 'a', 0o600));
}

function openSqlite(location: string, repeat: RepeatEvery | undefined): OpenedStore {
  let opened: NodeSqliteDatabase | undefined;
  const open = (): SqliteDatabase => {
    if (location !== ':memory:') {
      const tightened = tightenStoreFiles(location);
      if (tightened.length > 0) process.emitWarning(`herald: the store's files were readable by others and are now 0600: ${tightened.join(', ')}`);
      createPrivately(location);
    }
    const raw = new DatabaseSync(location, { timeout: 5000 });
    // WAL lets readers (the CLI, /readyz) proceed while the service writes;
    // synchronous=FULL syncs the WAL at every commit, so a 200 answer means the
    // message survives a power cut, not only a process crash. (The group committer
    // syncs its batches itself, off the event loop: see DirectSqlite.syncWal.)
    raw.exec('PRAGMA journal_mode = WAL');
    raw.exec('PRAGMA synchronous = FULL');
    raw.exec('PRAGMA foreign_keys = ON');
    // The group commit gives each unit of work a savepoint when one fails; SQLite copies
    // every page a unit changes into a statement journal, a temp file by default. In
    // memory, a savepoint costs a third as much (and holds only a batch's pages).
    raw.exec('PRAGMA temp_store = MEMORY');
    if (location !== ':memory:' && repeat !== undefined) {
      checkpointer = startWalCheckpointer(location, {
        repeat,
        setAutocheckpoint: (pages) => {
          if (raw.isOpen) raw.exec(`PRAGMA wal_autocheckpoint = ${pages}`);
        },
        // The connection checkpoints for itself again, as SQLite does by default: slower, never wrong.
        onFailure: (error) => process.emitWarning(`herald: the SQLite checkpoint thread failed, the service's connection checkpoints again: ${error instanceof Error ? error.message : String(error)}`),
      });
    }
    opened = new NodeSqliteDatabase(raw, () => {
      void wal?.close();
      void checkpointer?.close();
    });
    return opened;
  };
  let checkpointer: WalCheckpointer | undefined;
  const wal = location === ':memory:' ? undefined : new WalFile(`${location}-wal`);
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect(open) });
  return {
    db,
    capabilities: { skipLocked: false, singleServerProcess: true },
    heartbeat: { db, close: async () => {} },
    notifier: LOCAL_NOTIFIER,
    ...(location === ':memory:' ? {} : { lockForServing: () => holdServingLock(location) }),
    direct: {
      statement(sqliteText) {
        // Kysely opens the connection on its first query, which a transaction's BEGIN is.
        if (opened === undefined) throw new Error('the SQLite connection is not open yet');
        return opened.statement(sqliteText);
      },
      syncWal: async () => wal?.sync(),
      beforeBatch: () => checkpointer?.beforeBatch(),
    },
  };
}

/** The WAL file, opened once for syncing (its inode lives as long as the database is open). */
class WalFile {
  readonly #path: string;
  #handle: Promise<FileHandle | undefined> | undefined;

  constructor(path: string) {
    this.#path = path;
  }

  async sync(): Promise<void> {
    this.#handle ??= openFile(this.#path, 'r+').catch((error: NodeJS.ErrnoException) => {
      // No WAL yet: nothing was ever written, so nothing needs syncing; try again next time.
      if (error.code === 'ENOENT') {
        this.#handle = undefined;
        return undefined;
      }
      throw error;
    });
    const handle = await this.#handle;
    await handle?.datasync();
  }

  async close(): Promise<void> {
    const handle = await this.#handle?.catch(() => undefined);
    this.#handle = undefined;
    await handle?.close();
  }
}

// ---- PostgreSQL ----

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
class SchemaLockPostgresAdapter extends PostgresAdapter {
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

function openPostgres(url: string, options: StoreOptions): OpenedStore {
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

/** Opens the store named by HERALD_DATABASE_URL (validated by config.ts). */
export function openStore(databaseUrl: string, options: StoreOptions = {}): OpenedStore {
  if (databaseUrl.startsWith('sqlite:')) return openSqlite(databaseUrl.slice('sqlite:'.length), options.repeat);
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) return openPostgres(databaseUrl, options);
  throw new Error('unsupported database URL: expected sqlite:<path> or postgres://');
}

// ---- JSON and text in queries (the segment filter, store/segments.ts) ----

/**
 * The JSON and text operations whose SQL differs between the engines. JSON columns
 * are text in both (written once, read rarely): SQLite reads them with its JSON
 * functions, PostgreSQL casts them to jsonb where a query looks inside. `path` is a
 * list of object keys, always bound as a parameter.
 */
export interface QuerySql {
  /** The JSON type at `path`: 'string' | 'number' | 'true' | 'false' | 'null' | 'object' | 'array'; NULL when absent. */
  typeAt(json: Expression<string>, path: readonly string[]): RawBuilder<string | null>;
  /** The text at `path` when it is a JSON string, else NULL. */
  textAt(json: Expression<string>, path: readonly string[]): RawBuilder<string | null>;
  /** The number at `path` when it is a JSON number, else NULL. */
  numberAt(json: Expression<string>, path: readonly string[]): RawBuilder<number | null>;
  /** Whether the value at `path` is an array holding the string `value`. */
  arrayHasText(json: Expression<string>, path: readonly string[], value: string): RawBuilder<SqlBool>;
  /** Whether `text` contains `needle`, ignoring case (SQLite folds ASCII letters only). */
  containsText(text: Expression<string | null>, needle: string): RawBuilder<SqlBool>;
  /** `text` compared byte by byte (PostgreSQL's default collation would order by locale). */
  bytewise(text: Expression<string | null>): RawBuilder<string | null>;
  /** Whether the JSON object's `key` is `false`. */
  isFalse(json: Expression<string>, key: string): RawBuilder<SqlBool>;
}

const likePattern = (needle: string): string => `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
const sqlitePath = (path: readonly string[]): string => `$${path.map((key) => `."${key}"`).join('')}`;

const SQLITE_QUERY_SQL: QuerySql = {
  typeAt: (json, path) => sql<string | null>`(case json_type(${json}, ${sqlitePath(path)}) when 'text' then 'string' when 'integer' then 'number' when 'real' then 'number' else json_type(${json}, ${sqlitePath(path)}) end)`,
  textAt: (json, path) => sql<string | null>`(case when json_type(${json}, ${sqlitePath(path)}) = 'text' then json_extract(${json}, ${sqlitePath(path)}) end)`,
  numberAt: (json, path) => sql<number | null>`(case when json_type(${json}, ${sqlitePath(path)}) in ('integer', 'real') then json_extract(${json}, ${sqlitePath(path)}) end)`,
  arrayHasText: (json, path, value) =>
    sql<SqlBool>`(json_type(${json}, ${sqlitePath(path)}) = 'array' and exists (select 1 from json_each(${json}, ${sqlitePath(path)}) as item where item.type = 'text' and item.value = ${value}))`,
  containsText: (text, needle) => sql<SqlBool>`(${text} like ${likePattern(needle)} escape '\\')`,
  bytewise: (text) => sql<string | null>`${text}`,
  isFalse: (json, key) => sql<SqlBool>`(json_type(${json}, ${sqlitePath([key])}) = 'false')`,
};

const POSTGRES_QUERY_SQL: QuerySql = {
  typeAt: (json, path) =>
    sql<string | null>`(case jsonb_typeof(cast(${json} as jsonb) #> ${[...path]}::text[]) when 'boolean' then cast(${json} as jsonb) #>> ${[...path]}::text[] else jsonb_typeof(cast(${json} as jsonb) #> ${[...path]}::text[]) end)`,
  textAt: (json, path) =>
    sql<string | null>`(case when jsonb_typeof(cast(${json} as jsonb) #> ${[...path]}::text[]) = 'string' then cast(${json} as jsonb) #>> ${[...path]}::text[] end)`,
  numberAt: (json, path) =>
    sql<number | null>`(case when jsonb_typeof(cast(${json} as jsonb) #> ${[...path]}::text[]) = 'number' then cast(cast(${json} as jsonb) #>> ${[...path]}::text[] as double precision) end)`,
  arrayHasText: (json, path, value) =>
    sql<SqlBool>`(jsonb_typeof(cast(${json} as jsonb) #> ${[...path]}::text[]) = 'array' and (cast(${json} as jsonb) #> ${[...path]}::text[]) @> jsonb_build_array(${value}::text))`,
  containsText: (text, needle) => sql<SqlBool>`(${text} ilike ${likePattern(needle)} escape '\\')`,
  bytewise: (text) => sql<string | null>`(${text} collate "C")`,
  isFalse: (json, key) => sql<SqlBool>`((cast(${json} as jsonb) -> ${key}::text) = 'false'::jsonb)`,
};

/** The engine's QuerySql, for queries built on `db`. */
export function querySql(db: Kysely<Database>): QuerySql {
  return db.getExecutor().adapter instanceof PostgresAdapter ? POSTGRES_QUERY_SQL : SQLITE_QUERY_SQL;
}

// ---- Lock waits lost (the group committer, store/group-commit.ts) ----

// SQLSTATEs of a statement that gave up a lock: lock_not_available (lock_timeout),
// deadlock_detected (chosen as the victim), serialization_failure.
const LOCK_LOSSES = new Set(['55P03', '40P01', '40001']);

/** Whether a PostgreSQL error says the statement lost a lock wait: run again, it may pass. */
export function isPostgresLockLoss(error: unknown): boolean {
  return error instanceof Error && LOCK_LOSSES.has((error as { code?: unknown }).code as string);
}
