import type { ConsentSource, SubscriptionStatus } from '../campaigns/consent.ts';
import type { Executor } from './database.ts';
import { insertAll, insertRows, MAX_IN_LIST, queryRows, statement } from './prepared-statement.ts';

// Subscriptions (list_members: a contact on a list, with its status) and the consent
// history: every change of a subscription's status, with its time, source and detail.
// The two are always written together (see app/subscribe-contacts.ts).

export interface Subscription {
  readonly listId: string;
  readonly status: SubscriptionStatus;
}

export interface ConsentEvent {
  readonly id: string;
  readonly contactId: string;
  readonly listId: string;
  readonly status: SubscriptionStatus;
  readonly source: ConsentSource;
  readonly at: number;
  readonly detail: Readonly<Record<string, string>>;
}

/** The status of each of `contactIds` on the list (absent: not subscribed). */
export async function subscriptionStatuses(db: Executor, listId: string, contactIds: readonly string[]): Promise<Map<string, SubscriptionStatus>> {
  const statuses = new Map<string, SubscriptionStatus>();
  // Built, not prepared, as findContactsByEmail (store/contacts.ts) says why.
  for (let i = 0; i < contactIds.length; i += MAX_IN_LIST) {
    const rows = await db.selectFrom('list_members').select(['contact_id', 'status']).where('list_id', '=', listId)
      .where('contact_id', 'in', contactIds.slice(i, i + MAX_IN_LIST)).execute();
    for (const row of rows) statuses.set(row.contact_id, row.status as SubscriptionStatus);
  }
  return statuses;
}

const PUT_SUBSCRIPTIONS = insertRows('list_members', ['list_id', 'contact_id', 'status', 'created_at', 'updated_at'],
  'on conflict (list_id, contact_id) do update set status = excluded.status, updated_at = excluded.updated_at');
const CONSENT_EVENTS = insertRows('consent_events', ['id', 'contact_id', 'list_id', 'status', 'source', 'at', 'detail']);

/** Sets each subscription's status (creating it when new) and records the change in the consent history. */
export async function changeSubscriptions(db: Executor, changes: readonly ConsentEvent[]): Promise<void> {
  await insertAll(db, PUT_SUBSCRIPTIONS, changes.map((c) => [c.listId, c.contactId, c.status, c.at, c.at]));
  await insertAll(db, CONSENT_EVENTS, changes.map((c) => [
    c.id, c.contactId, c.listId, c.status, c.source, c.at, Object.keys(c.detail).length === 0 ? null : JSON.stringify(c.detail),
  ]));
}

/** Each contact's subscriptions, in list id order. */
export async function subscriptionsOf(db: Executor, contactIds: readonly string[]): Promise<Map<string, Subscription[]>> {
  const found = new Map<string, Subscription[]>(contactIds.map((id) => [id, []]));
  for (let i = 0; i < contactIds.length; i += MAX_IN_LIST) {
    const rows = await db.selectFrom('list_members').select(['contact_id', 'list_id', 'status'])
      .where('contact_id', 'in', contactIds.slice(i, i + MAX_IN_LIST)).orderBy('contact_id').orderBy('list_id').execute();
    for (const row of rows) found.get(row.contact_id)?.push({ listId: row.list_id, status: row.status as SubscriptionStatus });
  }
  return found;
}

/** The latest `limit` changes of the contact's consent, oldest first. */
export async function consentHistory(db: Executor, contactId: string, limit: number): Promise<ConsentEvent[]> {
  const rows = await queryRows<{ id: string; list_id: string; status: string; source: string; at: number; detail: string | null }>(
    db, CONSENT_HISTORY, [contactId, limit]);
  return rows.reverse().map((r) => ({
    id: r.id, contactId, listId: r.list_id, status: r.status as SubscriptionStatus, source: r.source as ConsentSource, at: Number(r.at),
    detail: r.detail === null ? {} : (JSON.parse(r.detail) as Record<string, string>),
  }));
}

const CONSENT_HISTORY = statement('select id, list_id, status, source, at, detail from consent_events where contact_id = $1 order by id desc limit $2');
