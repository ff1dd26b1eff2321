import type { Kysely } from 'kysely';

// Events: what a send asked for (family, metadata, certified, tracking), the
// account's webhook settings, the webhook outbox and its attempt log, the
// suppression list, inbound bounce and complaint reports kept for inspection, and
// certified-delivery receipts with the MIME they certify.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sends').addColumn('family', 'text', (c) => c.notNull().defaultTo('transactional')).execute();
  await db.schema.alterTable('sends').addColumn('metadata', 'text').execute();
  await db.schema.alterTable('sends').addColumn('certified', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  // What the send tracks (email with HTML only); copied here so an event never parses the payload.
  await db.schema.alterTable('sends').addColumn('track_opens', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('sends').addColumn('track_clicks', 'integer', (c) => c.notNull().defaultTo(0)).execute();

  // Event filter: a JSON array of public event types; null delivers every type.
  await db.schema.alterTable('accounts').addColumn('webhook_events', 'text').execute();
  await db.schema.alterTable('accounts').addColumn('webhook_secret', 'text').execute();
  // After a rotation the old secret keeps signing (a second signature) until this time.
  await db.schema.alterTable('accounts').addColumn('webhook_secret_previous', 'text').execute();
  await db.schema.alterTable('accounts').addColumn('webhook_secret_previous_until', 'bigint').execute();
  await db.schema.alterTable('accounts').addColumn('track_opens', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('accounts').addColumn('track_clicks', 'integer', (c) => c.notNull().defaultTo(1)).execute();

  await db.schema.createIndex('messages_account_id').on('messages').columns(['account_id', 'id']).execute();

  // One row per (event, account webhook): the webhook outbox. `id` is the event's id,
  // sent as `webhook-id`, the same on every retry so receivers can de-duplicate.
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // Null for test events, which belong to no message.
    .addColumn('message_id', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    // pending → succeeded | failed (schedule exhausted); a manual retry puts it back to pending.
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'bigint')
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // The dispatcher's claim reads due rows in (next_attempt_at, id) order and stops at its limit.
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at', 'id']).execute();
  await db.schema.createIndex('webhook_deliveries_message').on('webhook_deliveries').columns(['message_id', 'status', 'id']).execute();
  await db.schema.createIndex('webhook_deliveries_account').on('webhook_deliveries').columns(['account_id', 'id']).execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').columns(['delivery_id', 'at']).execute();

  await db.schema
    .createTable('suppressions')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // Lower-cased address.
    .addColumn('address', 'text', (c) => c.notNull())
    // unsubscribed | bounced | complained | manual
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('suppressions_pk', ['account_id', 'address'])
    .execute();

  // Every report the inbound listener took, matched or not, parsed or not.
  await db.schema
    .createTable('inbound_reports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    // dsn | arf | unknown
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('mail_from', 'text')
    .addColumn('rcpt_to', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text')
    .addColumn('raw', 'text', (c) => c.notNull())
    .addColumn('parsed', 'text')
    .addColumn('error', 'text')
    .execute();

  await db.schema
    .createTable('certificates')
    .addColumn('message_id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // The compact JWS (EdDSA) over the evidence.
    .addColumn('receipt', 'text', (c) => c.notNull())
    // The exact MIME that was delivered, whose SHA-256 the receipt carries.
    .addColumn('eml', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}
