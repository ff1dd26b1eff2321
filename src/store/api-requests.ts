import type { Executor } from './database.ts';
import { insertAll, insertRows } from './prepared-statement.ts';

// The API requests each key made (migration 0030): written in batches by
// app/api-request-log.ts, read one key at a time newest first, purged oldest first.

export interface ApiRequestEntry {
  readonly id: string;
  readonly accountId: string;
  readonly keyId: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly durationMs: number;
  readonly requestId: string;
  readonly createdAt: number;
}

const API_REQUESTS = insertRows('api_requests', ['id', 'account_id', 'key_id', 'method', 'path', 'request_id', 'status', 'duration_ms', 'created_at']);

/** Many entries, many rows a statement (insertAll). */
export async function insertApiRequests(db: Executor, entries: readonly ApiRequestEntry[]): Promise<void> {
  await insertAll(db, API_REQUESTS, entries.map((e) => [e.id, e.accountId, e.keyId, e.method, e.path, e.requestId, e.status, e.durationMs, e.createdAt]));
}

/** Where a page of a key's log starts: after this entry, in (created_at, id) order, newest first. */
export interface ApiRequestPosition {
  readonly createdAt: number;
  readonly id: string;
}

/** A key's requests newest first, one page, read off api_requests_key_created. */
export async function listApiRequests(db: Executor, keyId: string, page: { readonly after?: ApiRequestPosition; readonly limit: number }): Promise<ApiRequestEntry[]> {
  const after = page.after;
  const rows = await db.selectFrom('api_requests').selectAll().where('key_id', '=', keyId)
    .$if(after !== undefined, (q) => q
      .where('created_at', '<=', after?.createdAt ?? 0)
      .where((w) => w.or([w('created_at', '<', after?.createdAt ?? 0), w('id', '<', after?.id ?? '')])))
    .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).execute();
  return rows.map((r) => ({
    id: r.id, accountId: r.account_id, keyId: r.key_id, method: r.method, path: r.path, status: Number(r.status),
    durationMs: Number(r.duration_ms), requestId: r.request_id, createdAt: Number(r.created_at),
  }));
}

/** How many requests a key made, counting no further than `cap` + 1. */
export async function countApiRequests(db: Executor, keyId: string, cap: number): Promise<{ count: number; capped: boolean }> {
  const row = await db.selectFrom(db.selectFrom('api_requests').select('id').where('key_id', '=', keyId).limit(cap + 1).as('made'))
    .select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
  const n = Number(row.n);
  return { count: Math.min(n, cap), capped: n > cap };
}

/** Deletes up to `batch` of the oldest entries made before `before`; how many went. */
export async function purgeApiRequests(db: Executor, before: number, batch: number): Promise<number> {
  const result = await db.deleteFrom('api_requests')
    .where('id', 'in', db.selectFrom('api_requests').select('id').where('created_at', '<', before).orderBy('created_at').orderBy('id').limit(batch))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
