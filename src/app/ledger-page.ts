import { parseCount, parseTimeBound, queryFields } from '../domain/account-input.ts';
import { invalidField } from '../domain/admin-input.ts';
import { ok, type Result } from '../domain/result.ts';
import { listLedgerPage, type LedgerEntry } from '../store/ledger.ts';
import type { AppDeps } from './deps.ts';

export type { LedgerEntry };

// GET /v1/ledger?since=&until=&cursor=&limit=: the account's movements of messages and
// money, newest first, a keyset page at a time (the cursor is the last entry's id).

export const LEDGER_PAGE_DEFAULT = 50;
export const LEDGER_PAGE_MAX = 500;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface LedgerPageOf { readonly entries: readonly LedgerEntry[]; readonly nextCursor: string | null }

export async function ledgerPage(deps: AppDeps, accountId: string, rawQuery: unknown): Promise<Result<LedgerPageOf>> {
  const field = queryFields(rawQuery);
  const since = parseTimeBound(field('since'), 'since');
  if (!since.ok) return since;
  const until = parseTimeBound(field('until'), 'until');
  if (!until.ok) return until;
  const cursor = field('cursor');
  if (cursor !== undefined && cursor !== '' && (typeof cursor !== 'string' || !UUID.test(cursor))) return invalidField('cursor', 'must be the next_cursor of a previous page');
  const limit = parseCount(field('limit'), 'limit', LEDGER_PAGE_MAX, LEDGER_PAGE_DEFAULT);
  if (!limit.ok) return limit;
  // One row more than asked tells whether another page exists.
  const rows = await listLedgerPage(deps.db, accountId, {
    ...(since.value === undefined ? {} : { since: since.value }),
    ...(until.value === undefined ? {} : { until: until.value }),
    ...(typeof cursor === 'string' && cursor !== '' ? { before: cursor } : {}),
    limit: limit.value + 1,
  });
  const entries = rows.slice(0, limit.value);
  return ok({ entries, nextCursor: rows.length > limit.value ? (entries.at(-1)?.id ?? null) : null });
}
