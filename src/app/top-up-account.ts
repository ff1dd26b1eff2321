import { parseTopUp } from '../domain/admin-input.ts';
import { RejectionError, type Result } from '../domain/result.ts';
import { findAccount } from '../store/accounts.ts';
import type { LedgerEntry } from '../store/ledger.ts';
import { commitOrReject } from './commit-or-reject.ts';
import type { AppDeps } from './deps.ts';
import { topUp } from './account-changes.ts';

/**
 * POST /admin/v1/accounts/:id/top-ups: messages and money added (or removed) with the
 * operator's reason, which the account sees in its ledger. One transaction.
 */
export async function topUpAccount(deps: AppDeps, accountId: string, body: unknown): Promise<Result<LedgerEntry>> {
  const input = parseTopUp(body);
  if (!input.ok) return input;
  const now = deps.clock();
  return commitOrReject(deps.db, async (tx) => {
    const current = await findAccount(tx, accountId);
    if (!current) throw new RejectionError({ code: 'notFound' });
    return topUp(deps, tx, current, { messages: input.value.messages, balance: input.value.balance, note: input.value.reason }, now, { messages: 'messages', balance: 'balance' });
  });
}
