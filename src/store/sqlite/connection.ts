import { closeSync, mkdirSync, openSync } from 'node:fs';
import { open as openFile, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import {
  CompiledQuery,
  Kysely,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  type SqliteDatabase,
  type SqliteStatement,
} from 'kysely';
import type { Database } from '../database.ts';
import type { OpenedStore } from '../opened-store.ts';
import type { EngineAdapter } from '../engine.ts';
import { BoundedCache } from '../../cache/bounded-cache.ts';
import { LOCAL_NOTIFIER } from '../notify.ts';
import { toSqliteValue, type SqliteStatements } from '../prepared-statement.ts';
import { holdServingLock } from '../serving-lock.ts';
import { startWalCheckpointer, type RepeatEvery, type WalCheckpointer } from '../wal-checkpointer.ts';
import { tightenStoreFiles } from '../sqlite-files.ts';
import { sqliteBatchOperations } from './batch-operations.ts';
import { SQLITE_QUERY_SQL } from './query-sql.ts';

// The embedded store: node:sqlite behind Kysely's SQLite dialect, one connection, its
// WAL synced off the event loop for the group committer (store/group-commit.ts).

// Prepared statements are cached per SQL text, the least recently used going first:
// Kysely compiles the same few statements over and over, and preparing is a
// measurable share of a small query.
const STATEMENT_CACHE_SIZE = 512;

/** Presents node:sqlite's DatabaseSync as the better-sqlite3 shape Kysely's SqliteDialect expects. */
class NodeSqliteDatabase implements SqliteDatabase, SqliteStatements {
  readonly #db: DatabaseSync;
  readonly #onClose: () => void;
  readonly #statements = new BoundedCache<string, { raw: StatementSync; adapted: SqliteStatement }>({ maxEntries: STATEMENT_CACHE_SIZE });

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
    return this.#statements.obtain(sql, () => {
      const raw = this.#db.prepare(sql);
      return { raw, adapted: adaptStatement(raw) };
    });
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

  override createAdapter(): DialectAdapter {
    return new EngineSqliteAdapter();
  }
}

/** Kysely's SQLite adapter, carrying what herald does its own way on SQLite (store/engine.ts). */
class EngineSqliteAdapter extends SqliteAdapter implements EngineAdapter {
  readonly batchOperations = sqliteBatchOperations;
  readonly querySql = SQLITE_QUERY_SQL;
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

export function openSqlite(location: string, repeat: RepeatEvery | undefined): OpenedStore {
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
