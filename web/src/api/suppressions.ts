// The suppression list (/v1/suppressions): searched page by page, added to, removed from, exported.
import { api, send } from './http.ts';
import type { SuppressionPage, SuppressionView } from './types.ts';

export const SUPPRESSION_PAGE = 200;

export const suppressionKeys = {
  all: ['suppressions'],
  search: (q: string) => ['suppressions', q],
} as const;

export const fetchSuppressions = (q: string, cursor: string | undefined) =>
  api<SuppressionPage>('/v1/suppressions', { query: { q, cursor, limit: SUPPRESSION_PAGE } });

export const addSuppressions = (emails: readonly string[]) => api<{ data: SuppressionView[] }>('/v1/suppressions', { method: 'POST', body: { emails } });

export const removeSuppression = (email: string) => api<undefined>(`/v1/suppressions/${encodeURIComponent(email)}`, { method: 'DELETE' });

/** The CSV export of the addresses matching `q`, as herald writes it. */
export async function exportSuppressions(q: string): Promise<string> {
  const response = await send('/v1/suppressions/export', { query: { q } });
  return response.text();
}
