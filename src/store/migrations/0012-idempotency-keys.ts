import type { Kysely } from 'kysely';
import { createTable, primaryKey, required } from './column-kit.ts';

// Idempotency keys of the send routes (README "Idempotent sends"): one row per account
// and key, written in the send's own transaction with the answer it gave, kept 24
// hours; expired rows are purged in small batches (store/idempotency-keys.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  // fingerprint: SHA-256 (hex) of the method, path and body: the same key with another request is refused.
  // status, answer: the answer given (status and JSON text), written by the same transaction as the send
  // that claimed the key with 0 and '' at its start: committed rows always hold an answer.
  await createTable(db, 'idempotency_keys', [
    required('text', 'account_id', 'key', 'fingerprint'), required('integer', 'status'), required('text', 'answer'), required('bigint', 'created_at', 'expires_at'),
    primaryKey('idempotency_keys_pk', ['account_id', 'key']),
  ]);
  await db.schema.createIndex('idempotency_keys_expires').on('idempotency_keys').column('expires_at').execute();
}
