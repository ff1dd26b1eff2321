import type { Account } from '../domain/account.ts';
import { keepsSaverIn, refineAccountChange, type CheckedAccountChange } from '../domain/account-input.ts';
import { RejectionError, type Result } from '../domain/result.ts';
import { findAccount, updateAccount } from '../store/accounts.ts';
import { commitOrReject } from './commit-or-reject.ts';
import type { AppDeps } from './deps.ts';
import { forgetAccount } from './read-caches.ts';

/**
 * Who saves: a person signed in to the web application, from the address herald sees,
 * or an API key. Only a person is kept from locking themselves out: a key's holder
 * sets the list for keys on purpose (its integrations may live elsewhere), as before.
 */
export type AccountSaver = { readonly kind: 'session'; readonly ip: string } | { readonly kind: 'key' };

/**
 * PATCH /v1/account: the IP allow-list (canonical form stored) and whom it binds, the
 * settings the account keeps itself. Read, checked and written in one transaction, so
 * the check sees the list and setting it leaves behind.
 */
export async function changeOwnAccount(deps: AppDeps, accountId: string, body: CheckedAccountChange, saver: AccountSaver): Promise<Result<Account>> {
  const change = refineAccountChange(body);
  if (!change.ok) return change;
  const changed = await commitOrReject(deps.db, async (tx) => {
    const current = await findAccount(tx, accountId);
    if (current === undefined) throw new RejectionError({ code: 'notFound' });
    if (change.value.ipAllowList === undefined && change.value.allowListAppliesTo === undefined) return current;
    const next = { ...current, ...change.value };
    if (saver.kind === 'session') {
      const kept = keepsSaverIn(next, saver.ip);
      if (!kept.ok) throw new RejectionError(kept.rejection);
    }
    await updateAccount(tx, accountId, deps.clock(), change.value);
    return (await findAccount(tx, accountId)) ?? next;
  });
  // After the commit: a request meanwhile reads the old settings at most until here.
  if (changed.ok) forgetAccount(deps, accountId);
  return changed;
}
