// Usage (/v1/usage, the last days' counts) and the ledger (/v1/ledger, every movement).
import { api } from './http.ts';
import type { LedgerPage, Usage } from './types.ts';

export const LEDGER_PAGE = 50;

/** The ledger's period: ISO instants, or undefined for an open end. */
export interface LedgerRange { readonly since: string | undefined; readonly until: string | undefined }

export const usageKeys = {
  summary: (days: number) => ['usage', days],
  ledger: (range: unknown, cursor: string | undefined) => ['ledger', range, cursor],
} as const;

export const usageQuery = (days: number) => ({
  queryKey: usageKeys.summary(days),
  queryFn: () => api<Usage>('/v1/usage', { query: { days } }),
}) as const;

export const fetchLedger = (range: LedgerRange, cursor: string | undefined) =>
  api<LedgerPage>('/v1/ledger', { query: { since: range.since, until: range.until, cursor, limit: LEDGER_PAGE } });
