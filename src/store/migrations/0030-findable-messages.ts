import { sql, type Kysely } from 'kysely';
import type { Executor } from '../database.ts';
import { engineOf } from '../engine.ts';
import { accountRow, addNullable, belongsTo, createTable, required } from './column-kit.ts';

// Messages you can find (issue 24): a send keeps its subject (email) and sender (the
// From address, the SMS sender asked for) as columns, read with every page of the log
// and searched there without parsing each payload; sends stored before take them from
// their payload once, here. And the API requests each key made (method, path, status,
// duration, request id), written in batches by the API processes and kept for
// API_REQUEST_LOG_DAYS (app/api-request-log.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await addNullable(db, 'sends', { subject: 'text', sender: 'text' });
  const { textAt } = engineOf(db as unknown as Executor).querySql;
  const payload = sql.ref<string>('payload');
  await sql`update sends set subject = ${textAt(payload, ['subject'])}, sender = ${textAt(payload, ['from', 'email'])} where channel = 'email'`.execute(db);
  await sql`update sends set sender = ${textAt(payload, ['from'])} where channel = 'sms'`.execute(db);

  // One row per request a key made; path without its query (which may name recipients).
  await createTable(db, 'api_requests', [
    accountRow, belongsTo('key_id', 'api_keys.id'), required('text', 'method', 'path', 'request_id'), required('integer', 'status', 'duration_ms'),
    required('bigint', 'created_at'),
  ]);
  // A key's log, newest first; the purge walks the oldest.
  await db.schema.createIndex('api_requests_key_created').on('api_requests').columns(['key_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('api_requests_created').on('api_requests').columns(['created_at', 'id']).execute();
}
