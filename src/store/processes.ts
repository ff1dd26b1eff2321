import { sql } from 'kysely';
import type { Executor } from './database.ts';

// The running processes and their heartbeats, for the operator's service health: each
// process writes its row at start, refreshes last_seen_at every few seconds and deletes
// it when it stops; a process that died leaves a row that stops being refreshed.

export interface ProcessRecord {
  readonly id: string;
  readonly role: string;
  readonly pid: number;
  readonly host: string;
  readonly startedAt: number;
  readonly lastSeenAt: number;
}

export async function insertProcess(db: Executor, process: ProcessRecord): Promise<void> {
  await db.insertInto('processes').values({
    id: process.id, role: process.role, pid: process.pid, host: process.host, started_at: process.startedAt, last_seen_at: process.lastSeenAt,
  }).execute();
}

/** A beat: last seen now, and leases the process takes from now on belong to a live process again (store/lease-takeover.ts). */
export async function touchProcess(db: Executor, id: string, at: number): Promise<void> {
  await db.updateTable('processes').set({ last_seen_at: at, leases_released_at: null }).where('id', '=', id).execute();
}

export async function deleteProcess(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('processes').where('id', '=', id).execute();
}

/** Rows of processes not seen since `before` (they stopped without saying so). */
export async function deleteProcessesSeenBefore(db: Executor, before: number): Promise<void> {
  await db.deleteFrom('processes').where('last_seen_at', '<', before).execute();
}

/** Processes seen at or after `since`, oldest start first. */
export async function listProcessesSeenSince(db: Executor, since: number): Promise<ProcessRecord[]> {
  const rows = await db.selectFrom('processes').selectAll().where('last_seen_at', '>=', since).orderBy('started_at').orderBy('id').execute();
  return rows.map((r) => ({ id: r.id, role: r.role, pid: Number(r.pid), host: r.host, startedAt: Number(r.started_at), lastSeenAt: Number(r.last_seen_at) }));
}

/**
 * Messages that failed or bounced at or after `since`, over every account: counted from
 * their events through the partial index message_events_failures (migration 0011), whose
 * predicate this query repeats word for word so both engines use it.
 */
export async function countFailuresSince(db: Executor, since: number): Promise<number> {
  const row = await db
    .selectFrom('message_events')
    .select(db.fn.countAll<number | string>().as('n'))
    .where(sql<boolean>`type in ('failed', 'bounced')`)
    .where('at', '>=', since)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
