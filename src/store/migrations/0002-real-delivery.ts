import type { Kysely } from 'kysely';
import { addNullable, addStartingAt, belongsTo, createTable, primaryKey, required } from './column-kit.ts';

// Real delivery: DKIM keys and DNS verification for sender domains, the provider's
// own id of a message (SMPP message_id, WhatsApp wamid) to match receipts and status
// callbacks, WhatsApp Cloud API credentials per account, and the 24-hour
// customer-service windows that session messages need.
export async function up(db: Kysely<unknown>): Promise<void> {
  await addNullable(db, 'sender_domains', {
    dkim_selector: 'text', dkim_private_key: 'text', dkim_public_key: 'text', verification_token: 'text', verified_at: 'bigint',
  });

  await addNullable(db, 'messages', { provider_ref: 'text' });
  await db.schema.createIndex('messages_provider_ref').on('messages').columns(['channel', 'provider_ref']).execute();

  // Workers claim per channel, so a slow peer of one channel never holds up another.
  await addStartingAt(db, 'outbox', 'email', { channel: 'text' });
  await db.schema.createIndex('outbox_channel_available').on('outbox').columns(['channel', 'available_at']).execute();

  await addNullable(db, 'accounts', { whatsapp_phone_number_id: 'text', whatsapp_access_token: 'text' });

  await createTable(db, 'whatsapp_sessions', [
    belongsTo('account_id', 'accounts.id'), required('text', 'destination'), required('bigint', 'last_inbound_at'),
    primaryKey('whatsapp_sessions_pk', ['account_id', 'destination']),
  ]);
}
