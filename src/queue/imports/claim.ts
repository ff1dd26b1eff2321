import type { Selectable } from 'kysely';
import type { ContactImportsTable, Executor } from '../../store/database.ts';
import type { DialectCapabilities } from '../../store/dialect.ts';
import { toImport, type ContactImport } from '../../store/contact-imports.ts';
import { queryRows } from '../../store/prepared-statement.ts';
import { leaseStatement } from '../skip-locked.ts';

// The import queue's leases: a runner (queue/imports/import-runner.ts) reads a running
// import under lease_owner/lease_expires_at; each batch it commits is conditioned on
// that lease (store/contact-imports.ts recordProgress) and extends it.

// Each claim counts an attempt before any work starts, so a process that dies reading
// the import has counted it (recordProgress sets it back to 1: this attempt).
const CLAIM = leaseStatement((lock) => `
  update contact_imports set lease_owner = $1, lease_expires_at = $2, attempts = attempts + 1
  where id = (select id from contact_imports where status = 'running' and (lease_owner is null or lease_expires_at <= $3)
              order by id limit 1${lock})
  returning *`);

/** Takes the oldest running import nobody holds (or whose holder's lease ran out). */
export async function claimImport(
  db: Executor, capabilities: DialectCapabilities, owner: string, now: number, leaseMs: number,
): Promise<ContactImport | undefined> {
  const [row] = await queryRows<Selectable<ContactImportsTable>>(db, CLAIM(capabilities), [owner, now + leaseMs, now]);
  return row && toImport(row);
}

/** Lets go of every running import's lease (embedded SQLite at start: their holders belonged to a previous run). */
export async function releaseAllImports(db: Executor): Promise<number> {
  const result = await db.updateTable('contact_imports').set({ lease_owner: null, lease_expires_at: null }).where('status', '=', 'running').where('lease_owner', 'is not', null).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Lets go of one import: the next claim resumes it at once. A runner that stops
 * (SIGTERM) gives its attempt back; one whose reading failed keeps it counted.
 */
export async function releaseImport(db: Executor, importId: string, owner: string, attempt: 'given-back' | 'counted' = 'given-back'): Promise<void> {
  await db.updateTable('contact_imports').set((eb) => ({ lease_owner: null, lease_expires_at: null, attempts: attempt === 'given-back' ? eb('attempts', '-', 1) : eb.ref('attempts') }))
    .where('id', '=', importId).where('lease_owner', '=', owner).execute();
}
