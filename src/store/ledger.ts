import type { Executor } from './database.ts';

export const LEDGER_REASONS = ['email.send', 'sms.send', 'whatsapp.send', 'refund', 'account.open', 'admin.set', 'admin.top-up'] as const;
export type LedgerReason = (typeof LEDGER_REASONS)[number];

export interface LedgerEntry {
  readonly id: string;
  readonly accountId: string;
  readonly at: number;
  readonly messagesDelta: number;
  readonly balanceDelta: number;
  readonly reason: LedgerReason;
  readonly sendId: string | null;
}

export async function appendLedger(db: Executor, entry: LedgerEntry): Promise<void> {
  await db
    .insertInto('ledger')
    .values({
      id: entry.id, account_id: entry.accountId, at: entry.at, messages_delta: entry.messagesDelta,
      balance_delta: entry.balanceDelta, reason: entry.reason, send_id: entry.sendId,
    })
    .execute();
}

export async function listLedger(db: Executor, accountId: string): Promise<LedgerEntry[]> {
  const rows = await db.selectFrom('ledger').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
  return rows.map((r) => ({
    id: r.id, accountId: r.account_id, at: Number(r.at), messagesDelta: Number(r.messages_delta),
    balanceDelta: Number(r.balance_delta), reason: r.reason as LedgerReason, sendId: r.send_id,
  }));
}
