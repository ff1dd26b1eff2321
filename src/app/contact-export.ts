import { setImmediate as nextTurn } from 'node:timers/promises';
import { csvLine } from '../domain/csv-line.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import { listContacts } from '../store/contacts.ts';
import { findList } from '../store/lists.ts';
import { subscriptionsOf } from '../store/subscriptions.ts';
import type { AppDeps } from './deps.ts';

// GET /v1/contacts/export: the account's contacts (or one list's) as CSV, streamed a page
// at a time so memory stays bounded whatever the account holds; the account's contact
// quota bounds the whole. Attributes are one JSON cell: their names differ from contact
// to contact, and a header of every name would need a pass over all of them first.

/** Contacts read per statement. */
export const CONTACT_EXPORT_BATCH = 500;
export const CONTACT_EXPORT_HEADER = ['email', 'name', 'created_at', 'attributes'] as const;
/** With a list: the contact's subscription status to it after the name. */
export const LIST_EXPORT_HEADER = ['email', 'name', 'status', 'created_at', 'attributes'] as const;

export async function exportAccountContacts(
  deps: Pick<AppDeps, 'db'>, accountId: string, query: { list_id?: string },
): Promise<Result<{ filename: string; lines: AsyncIterable<string> }>> {
  const listId = query.list_id === '' ? undefined : query.list_id;
  if (listId !== undefined && (await findList(deps.db, accountId, listId)) === undefined) return reject('notFound');
  async function* lines(): AsyncGenerator<string> {
    yield `${csvLine(listId === undefined ? CONTACT_EXPORT_HEADER : LIST_EXPORT_HEADER)}\r\n`;
    let after: string | undefined;
    for (;;) {
      const rows = await listContacts(deps.db, accountId, {
        limit: CONTACT_EXPORT_BATCH, ...(listId === undefined ? {} : { listId }), ...(after === undefined ? {} : { after }),
      });
      const statuses = listId === undefined ? undefined : await subscriptionsOf(deps.db, rows.map((c) => c.id));
      yield rows.map((c) => {
        const status = statuses?.get(c.id)?.find((s) => s.listId === listId)?.status ?? '';
        const created = new Date(c.createdAt).toISOString();
        const attributes = JSON.stringify(c.attributes);
        return `${csvLine(listId === undefined ? [c.email, c.name, created, attributes] : [c.email, c.name, status, created, attributes])}\r\n`;
      }).join('');
      if (rows.length < CONTACT_EXPORT_BATCH) return;
      after = rows.at(-1)?.id;
      // Other requests are served between pages.
      await nextTurn();
    }
  }
  return ok({ filename: listId === undefined ? 'contacts.csv' : `contacts-${listId}.csv`, lines: lines() });
}
