import type { Account } from '../domain/account.ts';
import { parseAccountChange } from '../domain/account-input.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import { findAccount, updateAccount } from '../store/accounts.ts';
import type { AppDeps } from './deps.ts';
import { forgetAccount } from './read-caches.ts';

/** PATCH /v1/account: the IP allow-list (canonical form stored), the one setting the account keeps itself. */
export async function changeOwnAccount(deps: AppDeps, accountId: string, body: unknown): Promise<Result<Account>> {
  const change = parseAccountChange(body);
  if (!change.ok) return change;
  if (change.value.ipAllowList !== undefined) {
    await updateAccount(deps.db, accountId, deps.clock(), { ipAllowList: change.value.ipAllowList });
    forgetAccount(deps, accountId);
  }
  const updated = await findAccount(deps.db, accountId);
  return updated === undefined ? reject('notFound') : ok(updated);
}
