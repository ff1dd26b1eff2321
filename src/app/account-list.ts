import { parseCount, queryFields } from '../domain/account-input.ts';
import { invalidField } from '../domain/admin-input.ts';
import { ok, type Result } from '../domain/result.ts';
import { listAccountSummaries, type AccountSummaryRecord } from '../store/accounts.ts';
import type { AppDeps } from './deps.ts';

export type { AccountSummaryRecord };

// GET /admin/v1/accounts?q=&cursor=&limit=: the operator's list of accounts, newest
// first, found by part of the name or the exact id, a keyset page at a time.

export const ACCOUNT_PAGE_DEFAULT = 50;
export const ACCOUNT_PAGE_MAX = 200;
export const ACCOUNT_SEARCH_MAX = 200;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export async function listAccounts(deps: AppDeps, rawQuery: unknown): Promise<Result<{ accounts: readonly AccountSummaryRecord[]; nextCursor: string | null }>> {
  const field = queryFields(rawQuery);
  const q = field('q');
  if (q !== undefined && (typeof q !== 'string' || q.length > ACCOUNT_SEARCH_MAX)) return invalidField('q', `must be text of at most ${ACCOUNT_SEARCH_MAX} characters`);
  const cursor = field('cursor');
  if (cursor !== undefined && cursor !== '' && (typeof cursor !== 'string' || !UUID.test(cursor))) return invalidField('cursor', 'must be the next_cursor of a previous page');
  const limit = parseCount(field('limit'), 'limit', ACCOUNT_PAGE_MAX, ACCOUNT_PAGE_DEFAULT);
  if (!limit.ok) return limit;
  const search = typeof q === 'string' && q.trim() !== '' ? q.trim() : undefined;
  // One row more than asked tells whether another page exists.
  const rows = await listAccountSummaries(deps.db, {
    ...(search === undefined ? {} : { q: search }),
    ...(typeof cursor === 'string' && cursor !== '' ? { before: cursor } : {}),
    limit: limit.value + 1,
  });
  const accounts = rows.slice(0, limit.value);
  return ok({ accounts, nextCursor: rows.length > limit.value ? (accounts.at(-1)?.account.id ?? null) : null });
}
