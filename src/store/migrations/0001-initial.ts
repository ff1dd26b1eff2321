import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';

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
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('messages_left', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('balance', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('whatsapp_price', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('rate_limit_per_second', 'integer', (c) => c.notNull().defaultTo(2))
    .addColumn('ip_allow_list', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('email_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('sms_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('whatsapp_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('webhook_url', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addCheckConstraint('accounts_messages_left_not_negative', sqlCheck('messages_left >= 0'))
    .addCheckConstraint('accounts_balance_not_negative', sqlCheck('balance >= 0'))
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('api_keys_account').on('api_keys').column('account_id').execute();

  await db.schema
    .createTable('sender_domains')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('verified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('sender_domains_account_domain', ['account_id', 'domain'])
    .execute();

  await db.schema
    .createTable('email_templates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('subject', 'text')
    .addColumn('html', 'text', (c) => c.notNull())
    .addColumn('text', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('email_templates_account').on('email_templates').column('account_id').execute();

  await db.schema
    .createTable('whatsapp_templates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('param_count', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('whatsapp_templates_account').on('whatsapp_templates').column('account_id').execute();

  await db.schema
    .createTable('sends')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('send_id', 'text', (c) => c.notNull().references('sends.id').onDelete('cascade'))
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('recipient_role', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    // What this message was billed, so a refund gives back exactly that.
    .addColumn('cost_messages', 'bigint', (c) => c.notNull())
    .addColumn('cost_balance', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('messages_account_created').on('messages').columns(['account_id', 'created_at']).execute();
  await db.schema.createIndex('messages_send').on('messages').column('send_id').execute();

  await db.schema
    .createTable('outbox')
    .addColumn('message_id', 'text', (c) => c.primaryKey().references('messages.id').onDelete('cascade'))
    .addColumn('available_at', 'bigint', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'bigint')
    .execute();
  await db.schema.createIndex('outbox_available').on('outbox').column('available_at').execute();

  await db.schema
    .createTable('message_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('message_id', 'text', (c) => c.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await db.schema.createIndex('message_events_message').on('message_events').column('message_id').execute();

  await db.schema
    .createTable('captures')
    .addColumn('message_id', 'text', (c) => c.primaryKey().references('messages.id').onDelete('cascade'))
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('ledger')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('messages_delta', 'bigint', (c) => c.notNull())
    .addColumn('balance_delta', 'bigint', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('send_id', 'text')
    .execute();
  await db.schema.createIndex('ledger_account_at').on('ledger').columns(['account_id', 'at']).execute();
}

function sqlCheck(condition: string): Expression<SqlBool> {
  return sql.raw<SqlBool>(condition);
}
