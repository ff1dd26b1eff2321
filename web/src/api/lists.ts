// Contact lists (/v1/lists): the account's lists, one list, and their changes.
import { api } from './http.ts';
import type { ListCreate, ListCreated, ListPatch, ListView } from './types.ts';

const listPath = (listId: string): string => `/v1/lists/${encodeURIComponent(listId)}`;

export const listKeys = {
  all: ['lists'],
  /** Every single list's entry (a contact's change of lists touches any of them). */
  details: ['list'],
  detail: (listId: string) => ['list', listId],
} as const;

export const listsQuery = { queryKey: listKeys.all, queryFn: () => api<{ lists: ListView[] }>('/v1/lists') } as const;

export const listQuery = (listId: string) => ({
  queryKey: listKeys.detail(listId),
  queryFn: () => api<ListView>(listPath(listId)),
}) as const;

export const createList = (body: ListCreate) => api<ListCreated>('/v1/lists', { method: 'POST', body });

export const updateList = (listId: string, body: ListPatch) => api<ListView>(listPath(listId), { method: 'PATCH', body });

export const deleteList = (listId: string) => api<undefined>(listPath(listId), { method: 'DELETE' });
