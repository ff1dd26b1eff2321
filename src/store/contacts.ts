import type { Attributes } from '../campaigns/contact-fields.ts';
import type { ContactsTable, Executor } from './database.ts';
import { execute, insertAll, insertRows, MAX_IN_LIST, queryRows, statement } from './prepared-statement.ts';
import type { Selectable } from 'kysely';

// An account's contacts: one per (lower-cased) address. Imports write them a batch at
// a time with prepared statements (straight on node:sqlite inside a group commit);
// every query is scoped by the account.

export interface Contact {
  readonly id: string;
  readonly accountId: string;
  readonly email: string;
  readonly name: string | null;
  readonly attributes: Attributes;
  readonly createdAt: number;
  readonly updatedAt: number;
}

type ContactRow = Selectable<ContactsTable>;

export const toContact = (row: ContactRow): Contact => ({
  id: row.id, accountId: row.account_id, email: row.email, name: row.name, attributes: JSON.parse(row.attributes) as Attributes,
  createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
});

export async function findContact(db: Executor, accountId: string, id: string): Promise<Contact | undefined> {
  const [row] = await queryRows<ContactRow>(db, FIND_CONTACT, [id, accountId]);
  return row && toContact(row);
}

const FIND_CONTACT = statement('select * from contacts where id = $1 and account_id = $2');

/** The account's contacts with these (lower-cased) addresses. */
export async function findContactsByEmail(db: Executor, accountId: string, emails: readonly string[]): Promise<Contact[]> {
  const found: Contact[] = [];
  // Built (and so planned) each time, not prepared: an import's tables grow from empty, and a
  // plan PostgreSQL made when they were small would scan them whole by the end.
  for (let i = 0; i < emails.length; i += MAX_IN_LIST) {
    const rows = await db.selectFrom('contacts').selectAll().where('account_id', '=', accountId).where('email', 'in', emails.slice(i, i + MAX_IN_LIST)).execute();
    for (const row of rows) found.push(toContact(row));
  }
  return found;
}

const CONTACT_COLUMNS = ['id', 'account_id', 'email', 'name', 'attributes', 'created_at', 'updated_at'] as const;
// A concurrent request may have created the same address meanwhile: the caller reads back.
const INSERT_CONTACTS = insertRows('contacts', CONTACT_COLUMNS, 'on conflict (account_id, email) do nothing');

/** Inserts contacts; an address the account already has is left as it is (read back to tell). */
/** How many contacts the account keeps (its quota, app/account-quotas.ts). */
export async function countContacts(db: Executor, accountId: string): Promise<number> {
  const row = await db.selectFrom('contacts').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function insertContacts(db: Executor, contacts: readonly Contact[]): Promise<void> {
  await insertAll(db, INSERT_CONTACTS, contacts.map((c) => [c.id, c.accountId, c.email, c.name, JSON.stringify(c.attributes), c.createdAt, c.updatedAt]));
}

export async function updateContact(db: Executor, contact: Contact): Promise<void> {
  await execute(db, UPDATE_CONTACT, [contact.email, contact.name, JSON.stringify(contact.attributes), contact.updatedAt, contact.id, contact.accountId]);
}

const UPDATE_CONTACT = statement('update contacts set email = $1, name = $2, attributes = $3, updated_at = $4 where id = $5 and account_id = $6');

/** Deletes the contact; its subscriptions and consent history go with it (foreign keys). */
export async function deleteContact(db: Executor, accountId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('contacts').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return result.numDeletedRows === 1n;
}

export interface ContactQuery {
  /** Only contacts with a subscription (any status) to this list. */
  readonly listId?: string;
  readonly email?: string;
  /** Keyset cursor: contacts with a greater id (UUIDv7: created later). */
  readonly after?: string;
  readonly limit: number;
}

/** A page of the account's contacts in id order (oldest first). */
export async function listContacts(db: Executor, accountId: string, query: ContactQuery): Promise<Contact[]> {
  let q = db.selectFrom('contacts').selectAll('contacts').where('contacts.account_id', '=', accountId);
  // Driven by the list's primary key (list_id, contact_id) when a list is given: in contact order already.
  if (query.listId !== undefined) q = q.innerJoin('list_members', 'list_members.contact_id', 'contacts.id').where('list_members.list_id', '=', query.listId);
  if (query.email !== undefined) q = q.where('contacts.email', '=', query.email);
  if (query.after !== undefined) q = q.where('contacts.id', '>', query.after);
  const rows = await q.orderBy('contacts.id').limit(query.limit).execute();
  return rows.map(toContact);
}
