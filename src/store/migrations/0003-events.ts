import type { Kysely } from 'kysely';
import { accountRow, addNullable, addStartingAt, belongsTo, createTable, idKey, lease, nullable, primaryKey, required, stamps, startingAt, textKey } from './column-kit.ts';

// Events: what a send asked for (family, metadata, certified, tracking), the
// account's webhook settings, the webhook outbox and its attempt log, the
// suppression list, inbound bounce and complaint reports kept for inspection, and
// certified-delivery receipts with the MIME they certify.
export async function up(db: Kysely<unknown>): Promise<void> {
  await addStartingAt(db, 'sends', 'transactional', { family: 'text' });
  await addNullable(db, 'sends', { metadata: 'text' });
  // certified; then what the send tracks (email with HTML only), copied here so an event never parses the payload.
  await addStartingAt(db, 'sends', 0, { certified: 'integer', track_opens: 'integer', track_clicks: 'integer' });

  // Event filter: a JSON array of public event types; null delivers every type. After a
  // rotation the old secret keeps signing (a second signature) until webhook_secret_previous_until.
  await addNullable(db, 'accounts', {
    webhook_events: 'text', webhook_secret: 'text', webhook_secret_previous: 'text', webhook_secret_previous_until: 'bigint',
  });
  await addStartingAt(db, 'accounts', 1, { track_opens: 'integer', track_clicks: 'integer' });

  await db.schema.createIndex('messages_account_id').on('messages').columns(['account_id', 'id']).execute();

  // One row per (event, account webhook): the webhook outbox. `id` is the event's id,
  // sent as `webhook-id`, the same on every retry so receivers can de-duplicate.
  // message_id: null for test events, which belong to no message. status: pending → succeeded | failed
  // (schedule exhausted); a manual retry puts it back to pending.
  await createTable(db, 'webhook_deliveries', [
    accountRow, nullable('text', 'message_id'), required('text', 'type', 'payload', 'status'), startingAt(0, 'integer', 'attempts'),
    required('bigint', 'next_attempt_at'), lease, nullable('integer', 'last_status_code'), nullable('text', 'last_error'), stamps,
  ]);
  // The dispatcher's claim reads due rows in (next_attempt_at, id) order and stops at its limit.
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at', 'id']).execute();
  await db.schema.createIndex('webhook_deliveries_message').on('webhook_deliveries').columns(['message_id', 'status', 'id']).execute();
  await db.schema.createIndex('webhook_deliveries_account').on('webhook_deliveries').columns(['account_id', 'id']).execute();

  await createTable(db, 'webhook_attempts', [
    idKey, belongsTo('delivery_id', 'webhook_deliveries.id'), required('bigint', 'at'), required('text', 'url'),
    nullable('integer', 'status_code'), nullable('text', 'error'), required('integer', 'duration_ms'),
  ]);
  await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').columns(['delivery_id', 'at']).execute();

  // address: lower-cased; reason: unsubscribed | bounced | complained | manual
  await createTable(db, 'suppressions', [
    belongsTo('account_id', 'accounts.id'), required('text', 'address', 'reason'), nullable('text', 'message_id'), required('bigint', 'created_at'),
    primaryKey('suppressions_pk', ['account_id', 'address']),
  ]);

  // Every report the inbound listener took, matched or not, parsed or not.
  // kind: dsn | arf | unknown
  await createTable(db, 'inbound_reports', [
    idKey, required('bigint', 'received_at'), required('text', 'kind'), nullable('text', 'mail_from'), required('text', 'rcpt_to'),
    nullable('text', 'message_id'), required('text', 'raw'), nullable('text', 'parsed', 'error'),
  ]);

  // receipt: the compact JWS (EdDSA) over the evidence; eml: the exact MIME that was
  // delivered, whose SHA-256 the receipt carries.
  await createTable(db, 'certificates', [textKey('message_id'), belongsTo('account_id', 'accounts.id'), required('text', 'receipt', 'eml'), required('bigint', 'created_at')]);
}
