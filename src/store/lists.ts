import type { Optin, SubscriptionStatus } from '../campaigns/consent.ts';
import type { Executor, ListsTable } from './database.ts';
import type { Selectable } from 'kysely';

// An account's lists. Every query is scoped by the account: another account's list
// id finds nothing.

export interface MailingList {
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  readonly optin: Optin;
  readonly description: string | null;
  readonly from: { readonly email: string; readonly name: string } | null;
  readonly confirmationTemplateId: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export type SubscriberCounts = Readonly<Record<SubscriptionStatus, number>>;

const toList = (row: Selectable<ListsTable>): MailingList => ({
  id: row.id, accountId: row.account_id, name: row.name, optin: row.optin as Optin, description: row.description,
  from: row.from_email === null ? null : { email: row.from_email, name: row.from_name ?? '' },
  confirmationTemplateId: row.confirmation_template_id, createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
});

const columns = (list: Omit<MailingList, 'id' | 'accountId' | 'createdAt'>) => ({
  name: list.name, optin: list.optin, description: list.description, from_email: list.from?.email ?? null, from_name: list.from?.name ?? null,
  confirmation_template_id: list.confirmationTemplateId, updated_at: list.updatedAt,
});

export async function insertList(db: Executor, list: MailingList): Promise<void> {
  await db.insertInto('lists').values({ id: list.id, account_id: list.accountId, created_at: list.createdAt, ...columns(list) }).execute();
}

export async function findList(db: Executor, accountId: string, id: string): Promise<MailingList | undefined> {
  const row = await db.selectFrom('lists').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return row && toList(row);
}

/** The account's lists among `ids`, by id (ids of other accounts, or of none, are absent). */
export async function findLists(db: Executor, accountId: string, ids: readonly string[]): Promise<Map<string, MailingList>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('lists').selectAll().where('account_id', '=', accountId).where('id', 'in', [...new Set(ids)]).execute();
  return new Map(rows.map((row) => [row.id, toList(row)]));
}

/** The account's lists, oldest first, at most `limit`. */
export async function listLists(db: Executor, accountId: string, limit: number): Promise<MailingList[]> {
  const rows = await db.selectFrom('lists').selectAll().where('account_id', '=', accountId).orderBy('id').limit(limit).execute();
  return rows.map(toList);
}

export async function countLists(db: Executor, accountId: string): Promise<number> {
  const row = await db.selectFrom('lists').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateList(db: Executor, list: MailingList): Promise<boolean> {
  const result = await db.updateTable('lists').set(columns(list)).where('id', '=', list.id).where('account_id', '=', list.accountId).executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Deletes the list; its subscriptions and their consent history go with it (foreign keys). */
export async function deleteList(db: Executor, accountId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('lists').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return result.numDeletedRows === 1n;
}

/** Subscribers per status of each list (an index-only count over list_members_status). */
export async function subscriberCounts(db: Executor, listIds: readonly string[]): Promise<Map<string, SubscriberCounts>> {
  const counts = new Map<string, Record<SubscriptionStatus, number>>(listIds.map((id) => [id, { confirmed: 0, unconfirmed: 0, unsubscribed: 0 }]));
  if (listIds.length === 0) return counts;
  const rows = await db
    .selectFrom('list_members')
    .select(['list_id', 'status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('list_id', 'in', [...listIds])
    .groupBy(['list_id', 'status'])
    .execute();
  for (const row of rows) {
    const list = counts.get(row.list_id);
    if (list && (row.status === 'confirmed' || row.status === 'unconfirmed' || row.status === 'unsubscribed')) list[row.status] = Number(row.n);
  }
  return counts;
}
