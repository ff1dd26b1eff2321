import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import { accountRow, belongsTo, idKey, lease, nullable, required, stamps, startingAt } from './column-kit.ts';

// One schema for both engines, through Kysely's builder: `text` ids (UUIDv7),
// `bigint` epoch-millisecond times and money units, `integer` 0/1 flags.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('accounts')
    .$call(idKey)
    .$call(required('text', 'name'))
    .$call(startingAt(1, 'integer', 'active'))
    .$call(startingAt(0, 'bigint', 'messages_left', 'balance', 'whatsapp_price'))
    .$call(startingAt(2, 'integer', 'rate_limit_per_second'))
    .$call(startingAt('[]', 'text', 'ip_allow_list'))
    .$call(startingAt(1, 'integer', 'email_enabled', 'sms_enabled', 'whatsapp_enabled'))
    .$call(nullable('text', 'webhook_url'))
    .$call(stamps)
    .addCheckConstraint('accounts_messages_left_not_negative', sqlCheck('messages_left >= 0'))
    .addCheckConstraint('accounts_balance_not_negative', sqlCheck('balance >= 0'))
    .execute();

  await db.schema
    .createTable('api_keys')
    .$call(accountRow)
    .$call(required('text', 'key_hash', 'scopes'))
    .$call(required('bigint', 'created_at'))
    .$call(nullable('bigint', 'expires_at', 'revoked_at'))
    .execute();
  await db.schema.createIndex('api_keys_account').on('api_keys').column('account_id').execute();

  await db.schema
    .createTable('sender_domains')
    .$call(accountRow)
    .$call(required('text', 'domain'))
    .$call(startingAt(0, 'integer', 'verified'))
    .$call(required('bigint', 'created_at'))
    .addUniqueConstraint('sender_domains_account_domain', ['account_id', 'domain'])
    .execute();

  await db.schema
    .createTable('email_templates')
    .$call(accountRow)
    .$call(required('text', 'name'))
    .$call(nullable('text', 'subject'))
    .$call(required('text', 'html'))
    .$call(nullable('text', 'text'))
    .$call(stamps)
    .execute();
  await db.schema.createIndex('email_templates_account').on('email_templates').column('account_id').execute();

  await db.schema
    .createTable('whatsapp_templates')
    .$call(accountRow)
    .$call(required('text', 'name', 'language', 'body'))
    .$call(required('integer', 'param_count'))
    .$call(required('text', 'status'))
    .$call(stamps)
    .execute();
  await db.schema.createIndex('whatsapp_templates_account').on('whatsapp_templates').column('account_id').execute();

  await db.schema
    .createTable('sends')
    .$call(accountRow)
    .$call(required('text', 'channel', 'payload'))
    .$call(required('bigint', 'created_at'))
    .execute();

  await db.schema
    .createTable('messages')
    .$call(accountRow)
    .$call(belongsTo('send_id', 'sends.id'))
    .$call(required('text', 'channel', 'recipient', 'recipient_role', 'status'))
    // What this message was billed, so a refund gives back exactly that.
    .$call(required('bigint', 'cost_messages', 'cost_balance'))
    .$call(stamps)
    .execute();
  await db.schema.createIndex('messages_account_created').on('messages').columns(['account_id', 'created_at']).execute();
  await db.schema.createIndex('messages_send').on('messages').column('send_id').execute();

  await db.schema
    .createTable('outbox')
    .addColumn('message_id', 'text', (c) => c.primaryKey().references('messages.id').onDelete('cascade'))
    .$call(required('bigint', 'available_at'))
    .$call(startingAt(0, 'integer', 'attempts'))
    .$call(lease)
    .execute();
  await db.schema.createIndex('outbox_available').on('outbox').column('available_at').execute();

  await db.schema
    .createTable('message_events')
    .$call(idKey)
    .$call(belongsTo('message_id', 'messages.id'))
    .$call(required('text', 'type'))
    .$call(required('bigint', 'at'))
    .$call(startingAt('{}', 'text', 'data'))
    .execute();
  await db.schema.createIndex('message_events_message').on('message_events').column('message_id').execute();

  await db.schema
    .createTable('captures')
    .addColumn('message_id', 'text', (c) => c.primaryKey().references('messages.id').onDelete('cascade'))
    .$call(required('text', 'content_type', 'body'))
    .$call(required('bigint', 'created_at'))
    .execute();

  await db.schema
    .createTable('ledger')
    .$call(accountRow)
    .$call(required('bigint', 'at', 'messages_delta', 'balance_delta'))
    .$call(required('text', 'reason'))
    .$call(nullable('text', 'send_id'))
    .execute();
  await db.schema.createIndex('ledger_account_at').on('ledger').columns(['account_id', 'at']).execute();
}

function sqlCheck(condition: string): Expression<SqlBool> {
  return sql.raw<SqlBool>(condition);
}
