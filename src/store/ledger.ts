import type { Executor } from './database.ts';
import { execute, statement } from './prepared-statement.ts';

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
}

export async function appendLedger(db: Executor, entry: LedgerEntry): Promise<void> {
  await execute(db, APPEND_LEDGER, [
    entry.id, entry.accountId, entry.at, entry.messagesDelta, entry.balanceDelta, entry.reason, entry.sendId,
  ]);
}

const APPEND_LEDGER = statement(`
  insert into ledger (id, account_id, at, messages_delta, balance_delta, reason, send_id)
  values ($1, $2, $3, $4, $5, $6, $7)`);

export async function listLedger(db: Executor, accountId: string): Promise<LedgerEntry[]> {
  const rows = await db.selectFrom('ledger').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
  return rows.map((r) => ({
    id: r.id, accountId: r.account_id, at: Number(r.at), messagesDelta: Number(r.messages_delta),
    balanceDelta: Number(r.balance_delta), reason: r.reason as LedgerReason, sendId: r.send_id,
  }));
}
