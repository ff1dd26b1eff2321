import type { Kysely } from 'kysely';
import { accountRow, belongsTo, check, createTable, idKey, lease, nullable, required, stamps, startingAt, textKey, unique } from './column-kit.ts';

// One schema for both engines, through Kysely's builder: `text` ids (UUIDv7),
// `bigint` epoch-millisecond times and money units, `integer` 0/1 flags.
export async function up(db: Kysely<unknown>): Promise<void> {
  await createTable(db, 'settings', [textKey('key'), required('text', 'value')]);

  await createTable(db, 'accounts', [
    idKey, required('text', 'name'), startingAt(1, 'integer', 'active'), startingAt(0, 'bigint', 'messages_left', 'balance', 'whatsapp_price'),
    startingAt(2, 'integer', 'rate_limit_per_second'), startingAt('[]', 'text', 'ip_allow_list'),
    startingAt(1, 'integer', 'email_enabled', 'sms_enabled', 'whatsapp_enabled'), nullable('text', 'webhook_url'), stamps,
    check('accounts_messages_left_not_negative', 'messages_left >= 0'), check('accounts_balance_not_negative', 'balance >= 0'),
  ]);

  await createTable(db, 'api_keys', [accountRow, required('text', 'key_hash', 'scopes'), required('bigint', 'created_at'), nullable('bigint', 'expires_at', 'revoked_at')]);
  await db.schema.createIndex('api_keys_account').on('api_keys').column('account_id').execute();

  await createTable(db, 'sender_domains', [
    accountRow, required('text', 'domain'), startingAt(0, 'integer', 'verified'), required('bigint', 'created_at'),
    unique('sender_domains_account_domain', ['account_id', 'domain']),
  ]);

  await createTable(db, 'email_templates', [accountRow, required('text', 'name'), nullable('text', 'subject'), required('text', 'html'), nullable('text', 'text'), stamps]);
  await db.schema.createIndex('email_templates_account').on('email_templates').column('account_id').execute();

  await createTable(db, 'whatsapp_templates', [
    accountRow, required('text', 'name', 'language', 'body'), required('integer', 'param_count'), required('text', 'status'), stamps,
  ]);
  await db.schema.createIndex('whatsapp_templates_account').on('whatsapp_templates').column('account_id').execute();

  await createTable(db, 'sends', [accountRow, required('text', 'channel', 'payload'), required('bigint', 'created_at')]);

  // cost_*: what this message was billed, so a refund gives back exactly that.
  await createTable(db, 'messages', [
    accountRow, belongsTo('send_id', 'sends.id'), required('text', 'channel', 'recipient', 'recipient_role', 'status'),
    required('bigint', 'cost_messages', 'cost_balance'), stamps,
  ]);
  await db.schema.createIndex('messages_account_created').on('messages').columns(['account_id', 'created_at']).execute();
  await db.schema.createIndex('messages_send').on('messages').column('send_id').execute();

  await createTable(db, 'outbox', [textKey('message_id', 'messages.id'), required('bigint', 'available_at'), startingAt(0, 'integer', 'attempts'), lease]);
  await db.schema.createIndex('outbox_available').on('outbox').column('available_at').execute();

  await createTable(db, 'message_events', [
    idKey, belongsTo('message_id', 'messages.id'), required('text', 'type'), required('bigint', 'at'), startingAt('{}', 'text', 'data'),
  ]);
  await db.schema.createIndex('message_events_message').on('message_events').column('message_id').execute();

  await createTable(db, 'captures', [textKey('message_id', 'messages.id'), required('text', 'content_type', 'body'), required('bigint', 'created_at')]);

  await createTable(db, 'ledger', [
    accountRow, required('bigint', 'at', 'messages_delta', 'balance_delta'), required('text', 'reason'), nullable('text', 'send_id'),
  ]);
  await db.schema.createIndex('ledger_account_at').on('ledger').columns(['account_id', 'at']).execute();
}
