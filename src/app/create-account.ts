import type { Account, Channel } from '../domain/account.ts';
import { insertAccount, type AccountChanges } from '../store/accounts.ts';
import { appendLedger } from '../store/ledger.ts';
import { applyAccountWebhookFields, refuseTakenName } from './account-changes.ts';
import { issueApiKey, type IssuedKey, type KeyDeps } from './api-keys.ts';

export interface NewAccount extends AccountChanges {
  readonly name: string;
  readonly services?: Partial<Record<Channel, boolean>>;
}

/**
 * Opens an account with a first API key of every scope, in one transaction with its
 * webhook fields (URL, filter, and the secret a URL needs). The opening balance and
 * message count enter the ledger like any later top-up, so the ledger always sums
 * to what the account holds. Names are unique without regard to case: a taken one is
 * refused with a RejectionError (409) naming the holder's id, so the operator finds the account they meant.
 */
export async function createAccount(deps: KeyDeps, input: NewAccount): Promise<{ account: Account; apiKey: IssuedKey }> {
  const id = deps.newId();
  const now = deps.clock();
  return deps.db.transaction().execute(async (tx) => {
    await refuseTakenName(tx, input.name);
    const account = await insertAccount(tx, id, now, input);
    await applyAccountWebhookFields(tx, id, input, now);
    if (account.messagesLeft !== 0 || account.balance !== 0) {
      await appendLedger(tx, {
        id: deps.newId(), accountId: id, at: now, messagesDelta: account.messagesLeft, balanceDelta: account.balance, reason: 'account.open', sendId: null,
      });
    }
    const apiKey = await issueApiKey(deps, tx, id);
    return { account, apiKey };
  });
}
