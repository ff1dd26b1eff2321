// What herald does with a SQLite store's files as files: their modes, and the online
// copy `herald backup` makes. The database holds DKIM private keys, API key hashes and
// every message, so the file, its -wal and -shm and every copy are the service user's
// alone (0600). SQLite gives -wal and -shm the database file's mode when it makes them.
import { chmodSync, closeSync, existsSync, openSync, statSync } from 'node:fs';
import { backup, DatabaseSync } from 'node:sqlite';

const PRIVATE = 0o600;

/** The database file and the -wal and -shm beside it. */
const filesOf = (location: string): string[] => [location, `${location}-wal`, `${location}-shm`];

/**
 * Tightens to 0600 any file of the store that others may read or write (a store made by
 * an older version, or a copy restored with the default umask); returns the files
 * changed, so the caller warns once.
 */
export function tightenStoreFiles(location: string): string[] {
  const changed: string[] = [];
  for (const file of filesOf(location)) {
    if (!existsSync(file)) continue;
    const mode = statSync(file).mode & 0o777;
    if ((mode & 0o077) === 0) continue;
    chmodSync(file, mode & 0o700);
    changed.push(`${file} (was ${mode.toString(8).padStart(4, '0')})`);
  }
  return changed;
}

// The whole database in one step of the online backup. SQLite restarts a backup from
// its first page when another connection writes between two steps, so a store under a
// steady load copied in small steps might never finish; one step reads one snapshot
// (a read transaction, which in WAL mode never blocks the service's writers), and runs
// on libuv's thread pool, not on the event loop.
const PAGES_PER_STEP = 2 ** 31 - 1;

/**
 * Copies the store at `location` into `target` (a new file, 0600) with SQLite's online
 * backup, while the service goes on reading and writing: the copy is the database as
 * of one commit. `settings` are then written into the copy (the delivery hold, so a
 * restored copy starts with its outbox held), before anyone can open it. Refuses to
 * overwrite an existing file. Returns the pages copied.
 */
export async function backupSqlite(location: string, target: string, settings: Readonly<Record<string, string>>): Promise<number> {
  // Made first, empty and 0600, so the copy is never readable by others, even for a moment.
  closeSync(openSync(target, 'wx', PRIVATE));
  const source = new DatabaseSync(location, { timeout: 5000 });
  let pages: number;
  try {
    pages = await backup(source, target, { rate: PAGES_PER_STEP });
  } finally {
    source.close();
  }
  const copy = new DatabaseSync(target, { timeout: 5000 });
  try {
    const put = copy.prepare('insert into settings (key, value) values (?, ?) on conflict (key) do update set value = excluded.value');
    for (const [key, value] of Object.entries(settings)) put.run(key, value);
    // The copy is one file: its WAL folded in, so it can be moved or archived alone.
    copy.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  } finally {
    copy.close();
  }
  chmodSync(target, PRIVATE);
  return pages;
}
