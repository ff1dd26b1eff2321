import type { Account } from '../domain/account.ts';
import type { KeyMode } from '../domain/key-mode.ts';
import { findAccount, debitBalanceWithEntry, debitMessages, debitMessagesWithEntry } from '../store/accounts.ts';
import type { Tx } from '../store/database.ts';
import { appendLedgerEntries, type LedgerReason } from '../store/ledger.ts';

// The debit of an accepted send, inside its unit of work. A test key's send is never
// billed (docs/sandbox.md): no debit, no ledger row, whatever is left; the answer shows
// what the account has, unchanged. Null: a live send that would overdraw.

interface Charge {
  readonly account: Account;
  readonly mode: KeyMode;
  readonly amount: number;
  readonly now: number;
  readonly reason: LedgerReason;
  readonly sendId: string;
  readonly ledgerId: () => string;
}

/** Takes `amount` prepaid messages; returns the messages left. */
export async function chargeMessages(tx: Tx, charge: Charge): Promise<number | null> {
  if (charge.mode === 'test') return (await findAccount(tx, charge.account.id))?.messagesLeft ?? 0;
  // With its ledger entry; on PostgreSQL taken with the batch's other debits at its end (store/accounts.ts).
  const debited = await debitMessagesWithEntry(tx, {
    id: charge.ledgerId(), accountId: charge.account.id, at: charge.now, messagesDelta: -charge.amount, balanceDelta: 0, reason: charge.reason, sendId: charge.sendId,
  }, charge.now);
  return debited === null ? null : debited.messagesLeft;
}

/** Many sends' prepaid messages at once (a batch send's items), each with its ledger entry. */
interface Charges {
  readonly account: Account;
  readonly now: number;
  readonly reason: LedgerReason;
  readonly ledgerId: () => string;
  readonly sends: readonly { readonly sendId: string; readonly amount: number }[];
}

/**
 * Takes the sends' total in one conditional debit (two statements whatever their number),
 * live keys only; returns the messages left, or null when the total would overdraw (nothing taken).
 */
export async function chargeMessagesTogether(tx: Tx, charges: Charges): Promise<number | null> {
  const billed = charges.sends.filter((s) => s.amount > 0);
  const total = billed.reduce((sum, s) => sum + s.amount, 0);
  if (total === 0) return (await findAccount(tx, charges.account.id))?.messagesLeft ?? 0;
  const debited = await debitMessages(tx, charges.account.id, total, charges.now);
  if (debited === null) return null;
  await appendLedgerEntries(tx, billed.map((s) => ({
    id: charges.ledgerId(), accountId: charges.account.id, at: charges.now, messagesDelta: -s.amount, balanceDelta: 0, reason: charges.reason, sendId: s.sendId,
  })));
  return debited.messagesLeft;
}

/** Takes `amount` of money (minor units) from the balance; returns the balance left. */
export async function chargeBalance(tx: Tx, charge: Charge): Promise<number | null> {
  if (charge.mode === 'test') return (await findAccount(tx, charge.account.id))?.balance ?? 0;
  const debited = await debitBalanceWithEntry(tx, {
    id: charge.ledgerId(), accountId: charge.account.id, at: charge.now, messagesDelta: 0, balanceDelta: -charge.amount, reason: charge.reason, sendId: charge.sendId,
  }, charge.now);
  return debited === null ? null : debited.balance;
}

/** What a message of the send costs (refunded if it fails before leaving): nothing for a test key's. */
export const costOf = (mode: KeyMode, cost: number): number => (mode === 'test' ? 0 : cost);
