import type { ReceivingRule, RuleAction } from '../domain/receiving-domain.ts';
import type { Executor } from './database.ts';

// The domains accounts receive email at (issue 23). A domain belongs to one account
// (the unique index on `domain`); the inbound listener reads it by name on each RCPT TO.

export interface ReceivingDomain {
  readonly id: string;
  readonly accountId: string;
  readonly domain: string;
  readonly verifiedAt: number | null;
  readonly rules: readonly ReceivingRule[];
  readonly createdAt: number;
  readonly updatedAt: number;
}

type Row = { id: string; account_id: string; domain: string; verified_at: number | string | null; rules: string | null; created_at: number | string; updated_at: number | string };

type StoredRule = { address: string; action: RuleAction; forward_to?: string };

const toRule = (stored: StoredRule): ReceivingRule =>
  (stored.forward_to === undefined ? { address: stored.address, action: stored.action } : { address: stored.address, action: stored.action, forwardTo: stored.forward_to });

const fromRow = (row: Row): ReceivingDomain => ({
  id: row.id,
  accountId: row.account_id,
  domain: row.domain,
  verifiedAt: row.verified_at === null ? null : Number(row.verified_at),
  rules: row.rules === null ? [] : (JSON.parse(row.rules) as StoredRule[]).map(toRule),
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

const rulesJson = (rules: readonly ReceivingRule[]): string =>
  JSON.stringify(rules.map((rule) => ({ address: rule.address, action: rule.action, ...(rule.forwardTo === undefined ? {} : { forward_to: rule.forwardTo }) })));

/** Stores a new domain; false when the name is taken already (by this account or another). */
export async function insertReceivingDomain(db: Executor, domain: { id: string; accountId: string; domain: string; now: number }): Promise<boolean> {
  const result = await db.insertInto('receiving_domains').values({
    id: domain.id, account_id: domain.accountId, domain: domain.domain, verified_at: null, rules: null, created_at: domain.now, updated_at: domain.now,
  }).onConflict((oc) => oc.column('domain').doNothing()).executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

/** The account's domains, by name. */
export async function listReceivingDomains(db: Executor, accountId: string): Promise<ReceivingDomain[]> {
  const rows = await db.selectFrom('receiving_domains').selectAll().where('account_id', '=', accountId).orderBy('domain').execute();
  return rows.map(fromRow);
}

/** One of the account's domains by id. */
export async function findReceivingDomain(db: Executor, accountId: string, id: string): Promise<ReceivingDomain | undefined> {
  const row = await db.selectFrom('receiving_domains').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return row === undefined ? undefined : fromRow(row);
}

/** A domain by its (lower-case) name, whoever owns it: the listener's routing. */
export async function findReceivingDomainByName(db: Executor, domain: string): Promise<ReceivingDomain | undefined> {
  const row = await db.selectFrom('receiving_domains').selectAll().where('domain', '=', domain).executeTakeFirst();
  return row === undefined ? undefined : fromRow(row);
}

export async function setReceivingRules(db: Executor, accountId: string, id: string, rules: readonly ReceivingRule[], now: number): Promise<boolean> {
  const result = await db.updateTable('receiving_domains').set({ rules: rulesJson(rules), updated_at: now })
    .where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Marks the domain verified unless it is already (verification is sticky, as a sender domain's). */
export async function markReceivingDomainVerified(db: Executor, id: string, now: number): Promise<void> {
  await db.updateTable('receiving_domains').set({ verified_at: now, updated_at: now }).where('id', '=', id).where('verified_at', 'is', null).execute();
}

export async function deleteReceivingDomain(db: Executor, accountId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('receiving_domains').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
