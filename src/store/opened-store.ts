import type { Kysely } from 'kysely';
import type { Database } from './database.ts';
import type { Notifier } from './notify.ts';
import type { SqliteStatements } from './prepared-statement.ts';
import type { ServingLock } from './serving-lock.ts';
import type { RepeatEvery } from './wal-checkpointer.ts';

// A store as store/dialect.ts openStore opens it, on either engine (store/sqlite/connection.ts,
// store/postgres/connection.ts), and the capability flags the queues read.

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
