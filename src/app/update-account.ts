import type { Account } from '../domain/account.ts';
import type { AccountUpdateInput } from '../domain/admin-input.ts';
import { RejectionError, type Result } from '../domain/result.ts';
import { findAccount, setAccountAmounts, updateAccount as updateAccountRow } from '../store/accounts.ts';
import type { Tx } from '../store/database.ts';
import { appendLedger, type LedgerReason } from '../store/ledger.ts';
import { applyAccountWebhookFields, refuseTakenName, topUp } from './account-changes.ts';
import { commitOrReject } from './commit-or-reject.ts';
import type { AppDeps } from './deps.ts';
import { forgetAccount } from './read-caches.ts';

// A compare-and-set that keeps failing means something rewrites the account in a
// loop; on SQLite (write lock taken at BEGIN) the first attempt always succeeds.
const SET_ATTEMPTS = 5;

/**
 * PATCH /admin/v1/accounts/:id. Plain fields are written as given; messages and
 * money only ever move through the ledger, so it always sums to what the account
 * holds: an absolute set writes its delta as `admin.set`, a top-up as `admin.top-up`.
 * All of it is one transaction.
 */
export async function updateAccount(deps: AppDeps, accountId: string, input: AccountUpdateInput): Promise<Result<Account>> {
  const { messagesLeft, balance, addMessages = 0, addBalance = 0, ...plain } = input;
  const now = deps.clock();

  const updated = await commitOrReject(deps.db, async (tx) => {
    let current = await findAccount(tx, accountId);
    if (!current) throw new RejectionError({ code: 'notFound' });

    if (plain.name !== undefined) await refuseTakenName(tx, plain.name, accountId);
    if (Object.keys(plain).length > 0) await updateAccountRow(tx, accountId, now, plain);
    // The filter lives beside the columns above; a URL set now gets its signing secret.
    await applyAccountWebhookFields(tx, accountId, plain, now);

    if (messagesLeft !== undefined || balance !== undefined) {
      current = await setAmounts(deps, tx, current, { messagesLeft, balance }, now);
    }
    if (addMessages !== 0 || addBalance !== 0) await topUp(deps, tx, current, { messages: addMessages, balance: addBalance, note: null }, now);

    const updated = await findAccount(tx, accountId);
    if (!updated) throw new Error(`account ${accountId} vanished inside its own update`);
    return updated;
  });
  // After the commit: a request meanwhile reads the old settings at most until here.
  forgetAccount(deps, accountId);
  return updated;
}

async function setAmounts(
  deps: AppDeps,
  tx: Tx,
  current: Account,
  wanted: { messagesLeft: number | undefined; balance: number | undefined },
  now: number,
): Promise<Account> {
  let before = current;
  for (let attempt = 1; ; attempt++) {
    const target = { messagesLeft: wanted.messagesLeft ?? before.messagesLeft, balance: wanted.balance ?? before.balance };
    if (await setAccountAmounts(tx, before.id, before, target, now)) {
      await record(deps, tx, before.id, target.messagesLeft - before.messagesLeft, target.balance - before.balance, 'admin.set', now);
      return { ...before, ...target };
    }
    if (attempt === SET_ATTEMPTS) throw new Error(`account ${before.id} kept changing while its amounts were set`);
    const reread = await findAccount(tx, before.id);
    if (!reread) throw new RejectionError({ code: 'notFound' });
    before = reread;
  }
}

async function record(deps: AppDeps, tx: Tx, accountId: string, messagesDelta: number, balanceDelta: number, reason: LedgerReason, now: number): Promise<void> {
  // A set to the value already held moves nothing, and the ledger lists movements only.
  if (messagesDelta === 0 && balanceDelta === 0) return;
  await appendLedger(tx, { id: deps.newId(), accountId, at: now, messagesDelta, balanceDelta, reason, sendId: null });
}
