import { backupStore, type BackupOutcome } from '../store/store-backup.ts';
import { heldCopySettings } from './delivery-hold.ts';

/**
 * `herald backup FILE`: an online copy of a SQLite store whose delivery is held, so a
 * copy restored later delivers nothing (its queue, its webhooks) before an operator
 * has looked (`herald outbox release`); on PostgreSQL, the pg_dump line to run.
 */
export function backUpStore(databaseUrl: string, file: string, clock: () => number): Promise<BackupOutcome> {
  return backupStore(databaseUrl, file, heldCopySettings(clock()));
}
