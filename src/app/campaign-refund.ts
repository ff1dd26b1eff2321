import { adjustAccount } from '../store/accounts.ts';
import { markRefunded, type Campaign } from '../store/campaigns.ts';
import type { Tx } from '../store/database.ts';
import { appendLedger } from '../store/ledger.ts';
import type { AppDeps } from './deps.ts';

/**
 * Gives back what the send debited and never became a message — once: `refunded`
 * grows by what is given, and the callers (a cancel; the batch that ends the walk)
 * hold the campaign's row in the same transaction. A ledger entry `refund` records it.
 */
export async function refundUnsent(deps: AppDeps, tx: Tx, campaign: Campaign, queuedNow: number, now: number): Promise<number> {
  // A test campaign debited nothing.
  if (campaign.mode === 'test') return 0;
  const refund = campaign.billed - queuedNow - campaign.refunded;
  if (refund <= 0) return 0;
  await adjustAccount(tx, campaign.accountId, refund, 0, now);
  await appendLedger(tx, { id: deps.newId(), accountId: campaign.accountId, at: now, messagesDelta: refund, balanceDelta: 0, reason: 'refund', sendId: null });
  await markRefunded(tx, campaign.id, refund);
  return refund;
}

