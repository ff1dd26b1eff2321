// The one place where the storage engines differ. Everything else in store/ and
// outbox/ goes through Kysely's builder and reads the capability flags below.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import {
  CompiledQuery,
  Kysely,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type SqliteDatabase,
  type SqliteStatement,
} from 'kysely';
import type { Database } from './database.ts';

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
}

// Prepared statements are cached per SQL text: Kysely compiles the same few
// statements over and over, and preparing is a measurable share of a small query.
const STATEMENT_CACHE_SIZE = 256;

/** Presents node:sqlite's DatabaseSync as the better-sqlite3 shape Kysely's SqliteDialect expects. */
class NodeSqliteDatabase implements SqliteDatabase {
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, SqliteStatement>();

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  prepare(sql: string): SqliteStatement {
    const cached = this.#statements.get(sql);
    if (cached) return cached;
    const statement = this.#db.prepare(sql);
    const adapted = adaptStatement(statement);
    if (this.#statements.size >= STATEMENT_CACHE_SIZE) {
      const oldest = this.#statements.keys().next().value;
      if (oldest !== undefined) this.#statements.delete(oldest);
    }
    this.#statements.set(sql, adapted);
    return adapted;
  }

  close(): void {
    this.#statements.clear();
    if (this.#db.isOpen) this.#db.close();
  }
}

type SqliteValue = null | number | bigint | string | NodeJS.ArrayBufferView;

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

function toSqliteValue(value: unknown): SqliteValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value as SqliteValue;
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

function openSqlite(location: string): OpenedStore {
  const open = (): SqliteDatabase => {
    if (location !== ':memory:') mkdirSync(dirname(location), { recursive: true });
    const raw = new DatabaseSync(location, { timeout: 5000 });
    // WAL lets readers (the CLI, /readyz) proceed while the service writes;
    // synchronous=FULL syncs the WAL at every commit, so a 200 answer means the
    // message survives a power cut, not only a process crash.
    raw.exec('PRAGMA journal_mode = WAL');
    raw.exec('PRAGMA synchronous = FULL');
    raw.exec('PRAGMA foreign_keys = ON');
    return new NodeSqliteDatabase(raw);
  };
  return { db: new Kysely<Database>({ dialect: new ImmediateSqliteDialect(open) }), capabilities: { skipLocked: false, singleServerProcess: true } };
}

/** Opens the store named by HERALD_DATABASE_URL (validated by config.ts). */
export function openStore(databaseUrl: string): OpenedStore {
  if (databaseUrl.startsWith('sqlite:')) return openSqlite(databaseUrl.slice('sqlite:'.length));
  throw new Error(`unsupported database URL: ${databaseUrl}`);
}
