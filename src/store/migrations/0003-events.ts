import type { Kysely } from 'kysely';
import { accountRow, addNullable, addStartingAt, belongsTo, idKey, lease, nullable, required, stamps, startingAt } from './column-kit.ts';

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
  await db.schema
    .createTable('webhook_deliveries')
    .$call(accountRow)
    // Null for test events, which belong to no message.
    .$call(nullable('text', 'message_id'))
    // status: pending → succeeded | failed (schedule exhausted); a manual retry puts it back to pending.
    .$call(required('text', 'type', 'payload', 'status'))
    .$call(startingAt(0, 'integer', 'attempts'))
    .$call(required('bigint', 'next_attempt_at'))
    .$call(lease)
    .$call(nullable('integer', 'last_status_code'))
    .$call(nullable('text', 'last_error'))
    .$call(stamps)
    .execute();
  // The dispatcher's claim reads due rows in (next_attempt_at, id) order and stops at its limit.
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at', 'id']).execute();
  await db.schema.createIndex('webhook_deliveries_message').on('webhook_deliveries').columns(['message_id', 'status', 'id']).execute();
  await db.schema.createIndex('webhook_deliveries_account').on('webhook_deliveries').columns(['account_id', 'id']).execute();

  await db.schema
    .createTable('webhook_attempts')
    .$call(idKey)
    .$call(belongsTo('delivery_id', 'webhook_deliveries.id'))
    .$call(required('bigint', 'at'))
    .$call(required('text', 'url'))
    .$call(nullable('integer', 'status_code'))
    .$call(nullable('text', 'error'))
    .$call(required('integer', 'duration_ms'))
    .execute();
  await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').columns(['delivery_id', 'at']).execute();

  await db.schema
    .createTable('suppressions')
    .$call(belongsTo('account_id', 'accounts.id'))
    // address: lower-cased; reason: unsubscribed | bounced | complained | manual
    .$call(required('text', 'address', 'reason'))
    .$call(nullable('text', 'message_id'))
    .$call(required('bigint', 'created_at'))
    .addPrimaryKeyConstraint('suppressions_pk', ['account_id', 'address'])
    .execute();

  // Every report the inbound listener took, matched or not, parsed or not.
  await db.schema
    .createTable('inbound_reports')
    .$call(idKey)
    .$call(required('bigint', 'received_at'))
    // dsn | arf | unknown
    .$call(required('text', 'kind'))
    .$call(nullable('text', 'mail_from'))
    .$call(required('text', 'rcpt_to'))
    .$call(nullable('text', 'message_id'))
    .$call(required('text', 'raw'))
    .$call(nullable('text', 'parsed', 'error'))
    .execute();

  await db.schema
    .createTable('certificates')
    .addColumn('message_id', 'text', (c) => c.primaryKey())
    .$call(belongsTo('account_id', 'accounts.id'))
    // receipt: the compact JWS (EdDSA) over the evidence; eml: the exact MIME that was
    // delivered, whose SHA-256 the receipt carries.
    .$call(required('text', 'receipt', 'eml'))
    .$call(required('bigint', 'created_at'))
    .execute();
}
