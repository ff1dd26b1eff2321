import type { Kysely } from 'kysely';
import { accountRow, addNullable, belongsTo, idKey, lease, nullable, required, stamps, startingAt } from './column-kit.ts';

// The audience of email campaigns: lists (single or double opt-in), contacts (one per
// address and account), their subscriptions with every change of consent, bulk
// imports stored in chunks so a restart can resume them, and on messages the campaign
// and contact a campaign message is for (filled by the campaign runner; null for
// every other message). See docs/campaigns.md.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('lists')
    .$call(accountRow)
    // optin: single | double
    .$call(required('text', 'name', 'optin'))
    // from_*: the sender of the list's confirmation emails, required for double opt-in;
    // confirmation_template_id: an email template replacing herald's confirmation text (null: herald's own).
    .$call(nullable('text', 'description', 'from_email', 'from_name', 'confirmation_template_id'))
    .$call(stamps)
    .execute();
  await db.schema.createIndex('lists_account').on('lists').columns(['account_id', 'id']).execute();

  await db.schema
    .createTable('contacts')
    .$call(accountRow)
    // Lower-cased: one contact per address and account.
    .$call(required('text', 'email'))
    .$call(nullable('text', 'name'))
    // A JSON object.
    .$call(startingAt('{}', 'text', 'attributes'))
    .$call(stamps)
    .execute();
  await db.schema.createIndex('contacts_account_email').on('contacts').columns(['account_id', 'email']).unique().execute();
  // Keyset pages of an account's contacts, and the campaign runner's batches, in id order.
  await db.schema.createIndex('contacts_account_id').on('contacts').columns(['account_id', 'id']).execute();

  await db.schema
    .createTable('list_members')
    .$call(belongsTo('list_id', 'lists.id'))
    .$call(belongsTo('contact_id', 'contacts.id'))
    // unconfirmed | confirmed | unsubscribed
    .$call(required('text', 'status'))
    .$call(stamps)
    .addPrimaryKeyConstraint('list_members_pk', ['list_id', 'contact_id'])
    .execute();
  // A contact's lists, and the segment's "is on one of these lists" probe per contact.
  await db.schema.createIndex('list_members_contact').on('list_members').columns(['contact_id', 'list_id', 'status']).execute();
  // Subscriber counts per status, and the members of a list in one status, in contact order.
  await db.schema.createIndex('list_members_status').on('list_members').columns(['list_id', 'status', 'contact_id']).execute();

  await db.schema
    .createTable('consent_events')
    .$call(idKey)
    .$call(belongsTo('contact_id', 'contacts.id'))
    .$call(belongsTo('list_id', 'lists.id'))
    // status: the subscription's status after the change; source: api | import | link | unsubscribe | complaint
    .$call(required('text', 'status', 'source'))
    .$call(required('bigint', 'at'))
    // JSON object: ip and user_agent (link), import_id (import), msgid (confirmation email, unsubscribe, complaint).
    .$call(nullable('text', 'detail'))
    .execute();
  await db.schema.createIndex('consent_events_contact').on('consent_events').columns(['contact_id', 'id']).execute();

  await db.schema
    .createTable('contact_imports')
    .$call(accountRow)
    // Not a foreign key: a list deleted during an import ends the import `failed`, with a message.
    .$call(nullable('text', 'list_id'))
    // format: csv | json; status: receiving (body being stored) → running → finished | failed
    .$call(required('text', 'format', 'status'))
    .$call(startingAt(0, 'integer', 'rows', 'created', 'updated', 'rejected'))
    // JSON array of the first 100 {row, message}.
    .$call(startingAt('[]', 'text', 'errors'))
    .$call(nullable('text', 'failure'))
    .$call(lease)
    .$call(stamps)
    .$call(nullable('bigint', 'finished_at'))
    .execute();
  await db.schema.createIndex('contact_imports_status').on('contact_imports').columns(['status', 'id']).execute();

  // The body of an import, in order, until the import ends: a restart parses it again
  // and skips the rows already committed.
  await db.schema
    .createTable('contact_import_chunks')
    .$call(belongsTo('import_id', 'contact_imports.id'))
    .$call(required('integer', 'seq'))
    .$call(required('text', 'data'))
    .addPrimaryKeyConstraint('contact_import_chunks_pk', ['import_id', 'seq'])
    .execute();

  // Campaign messages: which campaign and contact each is for. Null on every other
  // message, so the partial indexes cost the send path nothing.
  await addNullable(db, 'messages', { campaign_id: 'text', contact_id: 'text' });
  // Exactly one message per (campaign, contact), whatever crashes or workers do.
  await db.schema.createIndex('messages_campaign_contact').on('messages').columns(['campaign_id', 'contact_id']).unique()
    .where('campaign_id', 'is not', null).execute();
  // The engagement filters' probe: a contact's campaign messages.
  await db.schema.createIndex('messages_contact').on('messages').columns(['contact_id', 'id'])
    .where('contact_id', 'is not', null).execute();
}
