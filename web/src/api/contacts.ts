// Contacts (/v1/contacts) and their CSV imports (/v1/contacts/imports).
import { api, send } from './http.ts';
import type { ContactPage, ContactView, ImportView } from './types.ts';

export const CONTACT_PAGE = 50;

const contactPath = (contactId: string): string => `/v1/contacts/${encodeURIComponent(contactId)}`;

export const contactKeys = {
  all: ['contacts'],
  page: (listId: string | undefined, email: string, cursor: string | undefined) => ['contacts', listId, email, cursor],
  detail: (contactId: string) => ['contact', contactId],
  import: (importId: string) => ['contact-import', importId],
} as const;

export const fetchContacts = (listId: string, email: string, cursor: string | undefined) =>
  api<ContactPage>('/v1/contacts', { query: { list_id: listId, email, cursor, limit: CONTACT_PAGE } });

/** The contact with this address, in any list (a page of at most one). */
export const findContact = (email: string) => api<ContactPage>('/v1/contacts', { query: { email, limit: 1 } });

export const contactQuery = (contactId: string) => ({
  queryKey: contactKeys.detail(contactId),
  queryFn: () => api<ContactView>(contactPath(contactId)),
}) as const;

export const addContact = (body: { email: string; name?: string; lists: string[] }) => api<ContactView>('/v1/contacts', { method: 'POST', body });

/** Joins lists, or leaves them (recorded as an unsubscribe with source `api`). */
export const changeContactLists = (contactId: string, body: { lists: string[] } | { unsubscribe: string[] }) =>
  api<ContactView>(contactPath(contactId), { method: 'PATCH', body });

/** Changes the contact's name and attributes (a merge patch: a null attribute value removes it). */
export const updateContact = (contactId: string, body: { name?: string | null; attributes?: Record<string, unknown> }) =>
  api<ContactView>(contactPath(contactId), { method: 'PATCH', body });

/** The account's contacts, or a list's, as the CSV text herald streams (GET /v1/contacts/export). */
export async function exportContacts(listId: string | undefined): Promise<string> {
  const response = await send('/v1/contacts/export', { query: { list_id: listId } });
  return response.text();
}

export const deleteContact = (contactId: string) => api<undefined>(contactPath(contactId), { method: 'DELETE' });

/** Starts an import of a CSV text or file into a list: herald answers at once with the id to follow. */
export const startImport = (csv: string | Blob, listId: string) => api<{ import_id: string }>('/v1/contacts/imports', {
  method: 'POST', query: { list_id: listId }, text: { body: csv, type: 'text/csv' },
});

export const importQuery = (importId: string) => ({
  queryKey: contactKeys.import(importId),
  queryFn: () => api<ImportView>(`/v1/contacts/imports/${encodeURIComponent(importId)}`),
}) as const;
