import { reject, type Result } from '../domain/result.ts';

// What one account may keep and run at once (issue 19, item 1), beyond the per-request
// limits: contacts, the stored bodies of its imports in flight, and how many imports
// are in flight. Settings in config.ts (HERALD_ACCOUNT_MAX_*); past one, the request is
// refused with 403 `Account quota exceeded` and a detail naming the quota.

export interface AccountQuotas {
  /** Most contacts an account keeps (an import stops failed when a row would pass it; POST /v1/contacts is refused 403). */
  readonly maxContacts: number;
  /** Most bytes of import bodies an account has stored at once (imports receiving or running). */
  readonly maxUploadBytes: number;
  /** Most imports an account has receiving or running at once. */
  readonly maxImportsInFlight: number;
}

export const DEFAULT_ACCOUNT_QUOTAS: AccountQuotas = { maxContacts: 5_000_000, maxUploadBytes: 1024 * 1024 * 1024, maxImportsInFlight: 3 };

/** The refusal of a request past a quota, its detail naming the quota and its setting. */
export function quotaExceeded<T>(detail: string): Result<T> {
  return reject('quotaExceeded', { detail });
}

/** The contact quota in words, for the 403 of POST /v1/contacts and an import's failure. */
export const contactQuotaText = (maxContacts: number): string => `an account keeps at most ${maxContacts} contacts (HERALD_ACCOUNT_MAX_CONTACTS)`;
