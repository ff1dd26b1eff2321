import type { Executor, LedgerRow } from './database.ts';
import { execute, insertAll, insertRows, statement } from './prepared-statement.ts';

export const LEDGER_REASONS = ['email.send', 'email.confirmation', 'campaign.send', 'sms.send', 'whatsapp.send', 'refund', 'account.open', 'admin.set', 'admin.top-up'] as const;
export type LedgerReason = (typeof LEDGER_REASONS)[number];

export interface LedgerEntry {
  readonly id: string;
  readonly accountId: string;
  readonly at: number;
  readonly messagesDelta: number;
  readonly balanceDelta: number;
  readonly reason: LedgerReason;
  readonly sendId: string | null;
  /** The operator's words for a top-up or a set. */
  readonly note?: string | null;
}

export async function appendLedger(db: Executor, entry: LedgerEntry): Promise<void> {
  await execute(db, APPEND_LEDGER, [
    entry.id, entry.accountId, entry.at, entry.messagesDelta, entry.balanceDelta, entry.reason, entry.sendId,
  ]);
}

const APPEND_LEDGER = statement(`
  insert into ledger (id, account_id, at, messages_delta, balance_delta, reason, send_id)
  values ($1, $2, $3, $4, $5, $6, $7)`);

/** Many entries, many rows a statement (insertAll): a batch send's, one per item. */
export async function appendLedgerEntries(db: Executor, entries: readonly LedgerEntry[]): Promise<void> {
  await insertAll(db, LEDGER_ROWS, entries.map((e) => [e.id, e.accountId, e.at, e.messagesDelta, e.balanceDelta, e.reason, e.sendId]));
}

const LEDGER_ROWS = insertRows('ledger', ['id', 'account_id', 'at', 'messages_delta', 'balance_delta', 'reason', 'send_id']);

const toEntry = (r: LedgerRow): LedgerEntry => ({
  id: r.id, accountId: r.account_id, at: Number(r.at), messagesDelta: Number(r.messages_delta),
  balanceDelta: Number(r.balance_delta), reason: r.reason as LedgerReason, sendId: r.send_id, note: r.note,
});

export async function listLedger(db: Executor, accountId: string): Promise<LedgerEntry[]> {
  const rows = await db.selectFrom('ledger').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
  return rows.map(toEntry);
}

/** An entry written with the operator's words (a top-up with its reason). */
export async function appendNotedLedger(db: Executor, entry: LedgerEntry & { readonly note: string }): Promise<void> {
  await db.insertInto('ledger').values({
    id: entry.id, account_id: entry.accountId, at: entry.at, messages_delta: entry.messagesDelta,
    balance_delta: entry.balanceDelta, reason: entry.reason, send_id: entry.sendId, note: entry.note,
  }).execute();
}

export interface LedgerFilter {
  /** At or after (epoch ms). */
  readonly since?: number;
  /** Before (epoch ms). */
  readonly until?: number;
  /** Keyset cursor: entries with a smaller id (UUIDv7: older). */
  readonly before?: string;
  readonly limit: number;
}

/** One page of the account's ledger, newest first. */
export async function listLedgerPage(db: Executor, accountId: string, filter: LedgerFilter): Promise<LedgerEntry[]> {
  const rows = await db
    .selectFrom('ledger')
    .selectAll()
    .where('account_id', '=', accountId)
    .$if(filter.since !== undefined, (q) => q.where('at', '>=', filter.since ?? 0))
    .$if(filter.until !== undefined, (q) => q.where('at', '<', filter.until ?? 0))
    .$if(filter.before !== undefined, (q) => q.where('id', '<', filter.before ?? ''))
    .orderBy('id', 'desc')
    .limit(filter.limit)
    .execute();
  return rows.map(toEntry);
}
