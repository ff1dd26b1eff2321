import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

// One serving process per SQLite store: the process that runs the loops (delivery,
// webhooks, campaigns, imports) holds an exclusive lock for its whole life, taken before
// it binds a port or touches a lease. A second one refuses to start, so a store never
// has two sets of loops, and "releasing the leases of a previous run" at start is right:
// whoever held them is dead. The CLI and `--role api` processes never take it (they run
// no loops), so they keep working beside the server.
//
// The lock is SQLite's own, on a small file of its own beside the store
// (`<database>.lock`): an EXCLUSIVE transaction held open. SQLite's locks are POSIX
// advisory locks, which the kernel drops when the process ends in any way, SIGKILL
// included, so a crash never leaves the store locked. (The store itself cannot carry
// it: in WAL mode readers and the CLI's writes must go on beside the server.)

/** Another process holds the store's serving lock. */
export class ServingLockHeld extends Error {
  readonly lockFile: string;
  constructor(lockFile: string) {
    super(`another herald process serves this SQLite database (it holds ${lockFile}); stop it first, or run several processes on PostgreSQL`);
    this.lockFile = lockFile;
  }
}

export interface ServingLock {
  release(): void;
}

// SQLITE_BUSY: the lock is held elsewhere.
const SQLITE_BUSY = 5;

/** Takes the serving lock of the SQLite file at `location`, or throws ServingLockHeld. */
export function holdServingLock(location: string): ServingLock {
  const lockFile = `${location}.lock`;
  // Private like the store (its folder 0700, the file 0600): created here if missing.
  mkdirSync(dirname(lockFile), { recursive: true, mode: 0o700 });
  closeSync(openSync(lockFile, 'a', 0o600));
  const db = new DatabaseSync(lockFile, { timeout: 0 });
  try {
    // Exclusive locking mode: SQLite never lets go of the lock until the connection closes.
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if ((error as { errcode?: unknown }).errcode === SQLITE_BUSY) throw new ServingLockHeld(lockFile);
    throw error;
  }
  return {
    release() {
      if (!db.isOpen) return;
      db.exec('ROLLBACK');
      db.close();
    },
  };
}
