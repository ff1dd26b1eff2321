import type { Kysely } from 'kysely';

// Real delivery: DKIM keys and DNS verification for sender domains, the provider's
// own id of a message (SMPP message_id, WhatsApp wamid) to match receipts and status
// callbacks, WhatsApp Cloud API credentials per account, and the 24-hour
// customer-service windows that session messages need.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sender_domains').addColumn('dkim_selector', 'text').execute();
  await db.schema.alterTable('sender_domains').addColumn('dkim_private_key', 'text').execute();
  await db.schema.alterTable('sender_domains').addColumn('dkim_public_key', 'text').execute();
  await db.schema.alterTable('sender_domains').addColumn('verification_token', 'text').execute();
  await db.schema.alterTable('sender_domains').addColumn('verified_at', 'bigint').execute();

  await db.schema.alterTable('messages').addColumn('provider_ref', 'text').execute();
  await db.schema.createIndex('messages_provider_ref').on('messages').columns(['channel', 'provider_ref']).execute();

  // Workers claim per channel, so a slow peer of one channel never holds up another.
  await db.schema.alterTable('outbox').addColumn('channel', 'text', (c) => c.notNull().defaultTo('email')).execute();
  await db.schema.createIndex('outbox_channel_available').on('outbox').columns(['channel', 'available_at']).execute();

  await db.schema.alterTable('accounts').addColumn('whatsapp_phone_number_id', 'text').execute();
  await db.schema.alterTable('accounts').addColumn('whatsapp_access_token', 'text').execute();

  await db.schema
    .createTable('whatsapp_sessions')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('destination', 'text', (c) => c.notNull())
    .addColumn('last_inbound_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('whatsapp_sessions_pk', ['account_id', 'destination'])
    .execute();
}
