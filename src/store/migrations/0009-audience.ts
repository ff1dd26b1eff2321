import type { Kysely } from 'kysely';

// The audience of email campaigns: lists (single or double opt-in), contacts (one per
// address and account), their subscriptions with every change of consent, bulk
// imports stored in chunks so a restart can resume them, and on messages the campaign
// and contact a campaign message is for (filled by the campaign runner; null for
// every other message). See docs/campaigns.md.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('lists')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    // single | double
    .addColumn('optin', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    // The sender of the list's confirmation emails; required for double opt-in.
    .addColumn('from_email', 'text')
    .addColumn('from_name', 'text')
    // An email template replacing herald's confirmation text; null: herald's own.
    .addColumn('confirmation_template_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('lists_account').on('lists').columns(['account_id', 'id']).execute();

  await db.schema
    .createTable('contacts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // Lower-cased: one contact per address and account.
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    // A JSON object.
    .addColumn('attributes', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('contacts_account_email').on('contacts').columns(['account_id', 'email']).unique().execute();
  // Keyset pages of an account's contacts, and the campaign runner's batches, in id order.
  await db.schema.createIndex('contacts_account_id').on('contacts').columns(['account_id', 'id']).execute();

  await db.schema
    .createTable('list_members')
    .addColumn('list_id', 'text', (c) => c.notNull().references('lists.id').onDelete('cascade'))
    .addColumn('contact_id', 'text', (c) => c.notNull().references('contacts.id').onDelete('cascade'))
    // unconfirmed | confirmed | unsubscribed
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('list_members_pk', ['list_id', 'contact_id'])
    .execute();
  // A contact's lists, and the segment's "is on one of these lists" probe per contact.
  await db.schema.createIndex('list_members_contact').on('list_members').columns(['contact_id', 'list_id', 'status']).execute();
  // Subscriber counts per status, and the members of a list in one status, in contact order.
  await db.schema.createIndex('list_members_status').on('list_members').columns(['list_id', 'status', 'contact_id']).execute();

  await db.schema
    .createTable('consent_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('contact_id', 'text', (c) => c.notNull().references('contacts.id').onDelete('cascade'))
    .addColumn('list_id', 'text', (c) => c.notNull().references('lists.id').onDelete('cascade'))
    // The subscription's status after the change.
    .addColumn('status', 'text', (c) => c.notNull())
    // api | import | link | unsubscribe | complaint
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    // JSON object: ip and user_agent (link), import_id (import), msgid (confirmation email, unsubscribe, complaint).
    .addColumn('detail', 'text')
    .execute();
  await db.schema.createIndex('consent_events_contact').on('consent_events').columns(['contact_id', 'id']).execute();

  await db.schema
    .createTable('contact_imports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // Not a foreign key: a list deleted during an import ends the import `failed`, with a message.
    .addColumn('list_id', 'text')
    // csv | json
    .addColumn('format', 'text', (c) => c.notNull())
    // receiving (body being stored) → running → finished | failed
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('rows', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rejected', 'integer', (c) => c.notNull().defaultTo(0))
    // JSON array of the first 100 {row, message}.
    .addColumn('errors', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('failure', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .execute();
  await db.schema.createIndex('contact_imports_status').on('contact_imports').columns(['status', 'id']).execute();

  // The body of an import, in order, until the import ends: a restart parses it again
  // and skips the rows already committed.
  await db.schema
    .createTable('contact_import_chunks')
    .addColumn('import_id', 'text', (c) => c.notNull().references('contact_imports.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('contact_import_chunks_pk', ['import_id', 'seq'])
    .execute();

  // Campaign messages: which campaign and contact each is for. Null on every other
  // message, so the partial indexes cost the send path nothing.
  await db.schema.alterTable('messages').addColumn('campaign_id', 'text').execute();
  await db.schema.alterTable('messages').addColumn('contact_id', 'text').execute();
  // Exactly one message per (campaign, contact), whatever crashes or workers do.
  await db.schema.createIndex('messages_campaign_contact').on('messages').columns(['campaign_id', 'contact_id']).unique()
    .where('campaign_id', 'is not', null).execute();
  // The engagement filters' probe: a contact's campaign messages.
  await db.schema.createIndex('messages_contact').on('messages').columns(['contact_id', 'id'])
    .where('contact_id', 'is not', null).execute();
}
