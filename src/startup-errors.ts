import { sql } from 'kysely';
import { ConfigError } from './config.ts';
import type { Db } from './store/database.ts';
import { migrateToLatest, UnknownMigrationsError, type AppliedMigration } from './store/migrate.ts';
import type { OpenedStore } from './store/dialect.ts';
import { ServingLockHeld, type ServingLock } from './store/serving-lock.ts';

// What stops a start because of a setting: a database that cannot be opened as named
// or that a newer herald migrated, a listener that cannot bind. Each is said in one line naming the variable (exit 78,
// like any bad value), not as a stack trace.

// A SQLite path that cannot be a database file (its folder is a file, a read-only or
// forbidden place), and PostgreSQL errors that only a changed URL fixes: unknown host,
// wrong password, no such database or role.
const SQLITE_PATH_ERRORS = new Set(['ENOTDIR', 'EEXIST', 'EACCES', 'EPERM', 'EROFS', 'EISDIR', 'ENOENT', 'ERR_SQLITE_ERROR']);
const POSTGRES_URL_ERRORS = new Set(['ENOTFOUND', '28P01', '28000', '3D000']);

/** Opens the store with one query; a database URL that cannot work becomes a ConfigError naming HERALD_DATABASE_URL. */
export async function openOrExplain(db: Db, databaseUrl: string): Promise<void> {
  try {
    await sql`select 1`.execute(db);
  } catch (error) {
    const code = String((error as NodeJS.ErrnoException).code ?? '');
    const sqlite = databaseUrl.startsWith('sqlite:');
    if (sqlite ? SQLITE_PATH_ERRORS.has(code) : POSTGRES_URL_ERRORS.has(code)) {
      // The driver's words name the path or host; they never carry the URL's password.
      throw new ConfigError(`HERALD_DATABASE_URL: cannot open the database: ${(error as Error).message}`);
    }
    throw error;
  }
}

/**
 * Brings the schema up to date, each applied migration passed to `onApplied`; a store
 * with migrations this version does not have (a downgrade, another build) becomes a
 * ConfigError naming the versions: a supervisor restarting it would only fail again.
 */
export async function migrateOrExplain(db: Db, onApplied: (migration: AppliedMigration) => void = () => {}): Promise<void> {
  try {
    for (const migration of await migrateToLatest(db)) onApplied(migration);
  } catch (error) {
    if (!(error instanceof UnknownMigrationsError)) throw error;
    const which = `it holds migration${error.unknown.length === 1 ? '' : 's'} ${error.unknown.join(', ')}; this version's latest is ${error.latest}`;
    throw new ConfigError(error.newer
      ? `HERALD_DATABASE_URL: the store was migrated by a newer herald (${which}); run that version or a later one, or restore a backup taken before the upgrade`
      : `HERALD_DATABASE_URL: the store was migrated by another build of herald (${which}); run the build that migrated it`);
  }
}

/** Takes the store's serving lock where it has one; another process holding it becomes a ConfigError naming HERALD_DATABASE_URL. */
export function lockOrExplain(store: OpenedStore): ServingLock | undefined {
  try {
    return store.lockForServing?.();
  } catch (error) {
    if (error instanceof ServingLockHeld) throw new ConfigError(`HERALD_DATABASE_URL: ${error.message}`);
    throw error;
  }
}

export interface ListenerSettings {
  /** The port's variable, e.g. HERALD_PORT. */
  readonly portVariable: string;
  /** The address's variable, e.g. HERALD_HOST. */
  readonly hostVariable: string;
  readonly port: number;
  readonly host: string;
}

/** Runs `start` (a listen); a port in use, a privileged port or a foreign address becomes a ConfigError naming its variable. */
export async function listenOrExplain<T>(settings: ListenerSettings, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    const { portVariable, hostVariable, port, host } = settings;
    switch ((error as NodeJS.ErrnoException).code) {
      case 'EADDRINUSE':
        throw new ConfigError(`${portVariable}: port ${port} on ${host} is already in use (by another herald or another program); stop it or choose another port`);
      case 'EACCES':
        throw new ConfigError(`${portVariable}: port ${port} needs privileges this process does not have; use a port above 1023 (and forward to it)`);
      case 'EADDRNOTAVAIL':
        throw new ConfigError(`${hostVariable}: ${host} is not an address of this machine`);
      default:
        throw error;
    }
  }
}
