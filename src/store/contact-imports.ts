import type { Selectable } from 'kysely';
import type { KeyMode } from '../domain/key-mode.ts';
import type { ImportFormat } from '../campaigns/import-rows.ts';
import type { ContactImportsTable, Executor } from './database.ts';
import { execute, queryRows, statement } from './prepared-statement.ts';

// Contact imports and their stored bodies. An upload is `receiving` while its chunks
// are written (under a lease, so an upload cut short by a crash is cleared), then
// `running` until a runner (campaigns/import-runner.ts) has read every row: each batch
// commits its contacts together with the import's progress, conditioned on the
// runner's lease, so after a restart another runner resumes after the last committed
// row. The chunks are deleted when the import ends, one per unit of work (dropFirstChunk).

export type ImportStatus = 'receiving' | 'running' | 'finished' | 'failed';

export interface ImportError {
  readonly row: number;
  readonly message: string;
}

export interface ContactImport {
  readonly id: string;
  readonly accountId: string;
  readonly listId: string | null;
  readonly format: ImportFormat;
  readonly status: ImportStatus;
  readonly rows: number;
  readonly created: number;
  readonly updated: number;
  readonly rejected: number;
  readonly errors: readonly ImportError[];
  readonly failure: string | null;
  readonly createdAt: number;
  readonly finishedAt: number | null;
  /** Who started it: a test key's import queues its confirmation emails as test messages (migration 0022). */
  readonly mode: KeyMode;
  /** Claims since the last committed batch, this one included (see claimImport). */
  readonly attempts: number;
}

type ImportRow = Selectable<ContactImportsTable>;

export const toImport = (row: ImportRow): ContactImport => ({
  id: row.id, accountId: row.account_id, listId: row.list_id, format: row.format as ImportFormat, status: row.status as ImportStatus,
  rows: Number(row.rows), created: Number(row.created), updated: Number(row.updated), rejected: Number(row.rejected),
  errors: JSON.parse(row.errors) as ImportError[], failure: row.failure, createdAt: Number(row.created_at),
  finishedAt: row.finished_at === null ? null : Number(row.finished_at), mode: row.mode === 'test' ? 'test' : 'live',
  attempts: Number(row.attempts),
});

/** A new import, `receiving` under `owner`'s lease until markReceived. */
export async function insertImport(
  db: Executor, entry: { id: string; accountId: string; listId: string | null; format: ImportFormat; owner: string; leaseUntil: number; now: number; mode?: KeyMode },
): Promise<void> {
  await db.insertInto('contact_imports').values({
    id: entry.id, account_id: entry.accountId, list_id: entry.listId, format: entry.format, status: 'receiving', lease_owner: entry.owner, mode: entry.mode ?? 'live',
    lease_expires_at: entry.leaseUntil, created_at: entry.now, updated_at: entry.now,
  }).execute();
}

/** Stores the next chunk of an upload (`bytes` as uploaded) and extends its lease; in a unit of work of the caller's. */
export async function appendChunk(tx: Executor, importId: string, seq: number, data: string, bytes: number, leaseUntil: number): Promise<void> {
  await tx.insertInto('contact_import_chunks').values({ import_id: importId, seq, data }).execute();
  await tx.updateTable('contact_imports').set((eb) => ({ lease_expires_at: leaseUntil, body_bytes: eb('body_bytes', '+', bytes) })).where('id', '=', importId).execute();
}

/** What an account has in flight: imports receiving or running, and the bytes of their stored bodies. */
export async function importsInFlight(db: Executor, accountId: string): Promise<{ imports: number; bodyBytes: number }> {
  const row = await db.selectFrom('contact_imports')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.coalesce(eb.fn.sum<number>('body_bytes'), eb.lit(0)).as('bytes')])
    .where('account_id', '=', accountId).where('status', 'in', ['receiving', 'running']).executeTakeFirst();
  return { imports: Number(row?.n ?? 0), bodyBytes: Number(row?.bytes ?? 0) };
}

/** The upload is complete: a runner may take it. */
export async function markReceived(db: Executor, importId: string, now: number): Promise<void> {
  await db.updateTable('contact_imports').set({ status: 'running', lease_owner: null, lease_expires_at: null, updated_at: now })
    .where('id', '=', importId).where('status', '=', 'receiving').execute();
}

/** Drops an upload (refused, or cut short); its chunks go first (dropFirstChunk), for a large one. */
export async function deleteImport(db: Executor, importId: string): Promise<void> {
  await db.deleteFrom('contact_imports').where('id', '=', importId).execute();
}

/**
 * Deletes the first stored chunk of an import; false when none was left. SQLite reads
 * every page it frees, so a 256 MiB body goes a chunk per unit of work (app/contact-imports.ts dropBody).
 */
export async function dropFirstChunk(tx: Executor, importId: string): Promise<boolean> {
  const first = await tx.selectFrom('contact_import_chunks').select('seq').where('import_id', '=', importId).orderBy('seq').limit(1).executeTakeFirst();
  if (first === undefined) return false;
  await tx.deleteFrom('contact_import_chunks').where('import_id', '=', importId).where('seq', '=', first.seq).execute();
  return true;
}

/** The bodies left by imports that ended while their chunks were being dropped (a process that died meanwhile). */
export async function endedWithChunks(db: Executor): Promise<string[]> {
  const rows = await db.selectFrom('contact_imports').select('id').where('status', 'in', ['finished', 'failed'])
    .where((eb) => eb.exists(eb.selectFrom('contact_import_chunks').select('seq').whereRef('contact_import_chunks.import_id', '=', 'contact_imports.id'))).execute();
  return rows.map((r) => r.id);
}

/** Uploads whose receiver died (lease expired while `receiving`): nobody got their id, so they go (app/contact-imports.ts). */
export async function abandonedUploads(db: Executor, now: number): Promise<string[]> {
  const rows = await db.selectFrom('contact_imports').select('id').where('status', '=', 'receiving').where('lease_expires_at', '<=', now).execute();
  return rows.map((r) => r.id);
}

export async function findImport(db: Executor, accountId: string, id: string): Promise<ContactImport | undefined> {
  const row = await db.selectFrom('contact_imports').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return row && toImport(row);
}

/**
 * Records a committed batch: the rows read so far and the counts, and extends the lease.
 * False when `owner` no longer holds the import: the caller must roll the batch back.
 */
export async function recordProgress(
  db: Executor,
  progress: { importId: string; owner: string; rows: number; created: number; updated: number; rejected: number; errors: readonly ImportError[]; leaseUntil: number; now: number },
): Promise<boolean> {
  return (await execute(db, RECORD_PROGRESS, [
    progress.rows, progress.created, progress.updated, progress.rejected, JSON.stringify(progress.errors), progress.leaseUntil, progress.now,
    progress.importId, progress.owner,
  ])) === 1;
}

const RECORD_PROGRESS = statement(`
  update contact_imports set rows = $1, created = $2, updated = $3, rejected = $4, errors = $5, lease_expires_at = $6, updated_at = $7, attempts = 1
  where id = $8 and lease_owner = $9 and status = 'running'`);

/** Ends an import (`finished`, or `failed` with why); its body is dropped after (dropFirstChunk). False when `owner` no longer holds it. */
export async function endImport(
  db: Executor, end: { importId: string; owner: string; status: 'finished' | 'failed'; failure: string | null; now: number },
): Promise<boolean> {
  return (await execute(db, END_IMPORT, [end.status, end.failure, end.now, end.importId, end.owner])) === 1;
}

const END_IMPORT = statement(`
  update contact_imports set status = $1, failure = $2, finished_at = $3, updated_at = $3, lease_owner = null, lease_expires_at = null
  where id = $4 and lease_owner = $5 and status = 'running'`);

/** The stored body, chunk by chunk in order; one chunk in memory at a time. */
export async function* importChunks(db: Executor, importId: string): AsyncGenerator<string> {
  for (let seq = 0; ; seq += 1) {
    const [row] = await queryRows<{ data: string }>(db, READ_CHUNK, [importId, seq]);
    if (row === undefined) return;
    yield row.data;
  }
}

const READ_CHUNK = statement('select data from contact_import_chunks where import_id = $1 and seq = $2');
