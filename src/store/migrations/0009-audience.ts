import type { Kysely } from 'kysely';
import { accountRow, addNullable, belongsTo, createTable, idKey, lease, nullable, primaryKey, required, stamps, startingAt } from './column-kit.ts';

// The audience of email campaigns: lists (single or double opt-in), contacts (one per
// address and account), their subscriptions with every change of consent, bulk
// imports stored in chunks so a restart can resume them, and on messages the campaign
// and contact a campaign message is for (filled by the campaign runner; null for
// every other message). See docs/campaigns.md.
export async function up(db: Kysely<unknown>): Promise<void> {
  // optin: single | double; from_*: the sender of the list's confirmation emails, required for
  // double opt-in; confirmation_template_id: an email template replacing herald's confirmation text (null: herald's own).
  await createTable(db, 'lists', [
    accountRow, required('text', 'name', 'optin'), nullable('text', 'description', 'from_email', 'from_name', 'confirmation_template_id'), stamps,
  ]);
  await db.schema.createIndex('lists_account').on('lists').columns(['account_id', 'id']).execute();

  // email: lower-cased, one contact per address and account; attributes: a JSON object.
  await createTable(db, 'contacts', [accountRow, required('text', 'email'), nullable('text', 'name'), startingAt('{}', 'text', 'attributes'), stamps]);
  await db.schema.createIndex('contacts_account_email').on('contacts').columns(['account_id', 'email']).unique().execute();
  // Keyset pages of an account's contacts, and the campaign runner's batches, in id order.
  await db.schema.createIndex('contacts_account_id').on('contacts').columns(['account_id', 'id']).execute();

  // status: unconfirmed | confirmed | unsubscribed
  await createTable(db, 'list_members', [
    belongsTo('list_id', 'lists.id'), belongsTo('contact_id', 'contacts.id'), required('text', 'status'), stamps,
    primaryKey('list_members_pk', ['list_id', 'contact_id']),
  ]);
  // A contact's lists, and the segment's "is on one of these lists" probe per contact.
  await db.schema.createIndex('list_members_contact').on('list_members').columns(['contact_id', 'list_id', 'status']).execute();
  // Subscriber counts per status, and the members of a list in one status, in contact order.
  await db.schema.createIndex('list_members_status').on('list_members').columns(['list_id', 'status', 'contact_id']).execute();

  // status: the subscription's status after the change; source: api | import | link | unsubscribe | complaint;
  // detail: JSON object, ip and user_agent (link), import_id (import), msgid (confirmation email, unsubscribe, complaint).
  await createTable(db, 'consent_events', [
    idKey, belongsTo('contact_id', 'contacts.id'), belongsTo('list_id', 'lists.id'), required('text', 'status', 'source'), required('bigint', 'at'), nullable('text', 'detail'),
  ]);
  await db.schema.createIndex('consent_events_contact').on('consent_events').columns(['contact_id', 'id']).execute();

  // list_id: not a foreign key, a list deleted during an import ends the import `failed`, with a message.
  // format: csv | json; status: receiving (body being stored) → running → finished | failed;
  // errors: JSON array of the first 100 {row, message}.
  await createTable(db, 'contact_imports', [
    accountRow, nullable('text', 'list_id'), required('text', 'format', 'status'), startingAt(0, 'integer', 'rows', 'created', 'updated', 'rejected'),
    startingAt('[]', 'text', 'errors'), nullable('text', 'failure'), lease, stamps, nullable('bigint', 'finished_at'),
  ]);
  await db.schema.createIndex('contact_imports_status').on('contact_imports').columns(['status', 'id']).execute();

  // The body of an import, in order, until the import ends: a restart parses it again
  // and skips the rows already committed.
  await createTable(db, 'contact_import_chunks', [
    belongsTo('import_id', 'contact_imports.id'), required('integer', 'seq'), required('text', 'data'), primaryKey('contact_import_chunks_pk', ['import_id', 'seq']),
  ]);

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
