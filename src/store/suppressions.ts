import { sql } from 'kysely';
import type { Executor } from './database.ts';
import { placeholders, queryRows, statementPerCount } from './prepared-statement.ts';

export const SUPPRESSION_REASONS = ['unsubscribed', 'bounced', 'complained', 'manual'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

export interface Suppression {
  readonly address: string;
  readonly reason: SuppressionReason;
  readonly messageId: string | null;
  readonly createdAt: number;
}

// Addresses are compared lower-cased: mailbox local parts are case-sensitive in
// theory, but no provider treats them so, and a suppression must not be dodged by case.
const key = (address: string): string => address.toLowerCase();

/** `%text%` for LIKE, with LIKE's own characters escaped (the escape character is a backslash). */
const likePattern = (text: string): string => `%${key(text).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Adds an address; an address already suppressed keeps its first reason and time. */
export async function addSuppression(
  db: Executor,
  entry: { accountId: string; address: string; reason: SuppressionReason; messageId: string | null; at: number },
): Promise<boolean> {
  const result = await db
    .insertInto('suppressions')
    .values({ account_id: entry.accountId, address: key(entry.address), reason: entry.reason, message_id: entry.messageId, created_at: entry.at })
    .onConflict((oc) => oc.columns(['account_id', 'address']).doNothing())
    .executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

export async function removeSuppression(db: Executor, accountId: string, address: string): Promise<boolean> {
  const result = await db.deleteFrom('suppressions').where('account_id', '=', accountId).where('address', '=', key(address)).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Removes the address's suppression only when it is `reason` (an opt-in lifts an unsubscribe, never a bounce). */
export async function removeSuppressionOf(db: Executor, accountId: string, address: string, reason: SuppressionReason): Promise<boolean> {
  const result = await db.deleteFrom('suppressions').where('account_id', '=', accountId).where('address', '=', key(address)).where('reason', '=', reason).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Which of `addresses` the account suppresses, as the lower-cased set. */
export async function suppressedAmong(db: Executor, accountId: string, addresses: readonly string[]): Promise<Set<string>> {
  if (addresses.length === 0) return new Set();
  const keys = [...new Set(addresses.map(key))];
  // Read for every email sent: a prepared statement per number of addresses.
  const rows = await queryRows<{ address: string }>(db, suppressedAmongStatement(keys.length), [accountId, ...keys]);
  return new Set(rows.map((r) => r.address));
}

const suppressedAmongStatement = statementPerCount((count) =>
  `select address from suppressions where account_id = $1 and address in (${placeholders(2, count)})`);

/**
 * A page of the account's suppressions in address order, after the cursor `after` (an
 * address), and only of the addresses `among` when given.
 */
export async function listSuppressions(
  db: Executor,
  accountId: string,
  page: { after?: string; upTo?: string; among?: readonly string[]; containing?: string; limit: number },
): Promise<Suppression[]> {
  if (page.among !== undefined && page.among.length === 0) return [];
  const rows = await db
    .selectFrom('suppressions')
    .selectAll()
    .where('account_id', '=', accountId)
    .$if(page.after !== undefined, (q) => q.where('address', '>', page.after ?? ''))
    .$if(page.upTo !== undefined, (q) => q.where('address', '<=', page.upTo ?? ''))
    .$if(page.among !== undefined, (q) => q.where('address', 'in', (page.among ?? []).map(key)))
    .$if(page.containing !== undefined, (q) => q.where(sql<boolean>`address like ${likePattern(page.containing ?? '')} escape '\\'`))
    .orderBy('address')
    .limit(page.limit)
    .execute();
  return rows.map((r) => ({ address: r.address, reason: r.reason as SuppressionReason, messageId: r.message_id, createdAt: Number(r.created_at) }));
}

/** The account's `n`th suppressed address after `after` in address order; undefined when fewer remain. */
export async function nthSuppressedAddress(db: Executor, accountId: string, after: string | undefined, n: number): Promise<string | undefined> {
  const row = await db.selectFrom('suppressions').select('address').where('account_id', '=', accountId)
    .$if(after !== undefined, (q) => q.where('address', '>', after ?? ''))
    .orderBy('address').limit(1).offset(n - 1).executeTakeFirst();
  return row?.address;
}
