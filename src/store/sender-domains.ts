import type { Executor } from './database.ts';

export interface SenderDomain {
  readonly id: string;
  readonly accountId: string;
  readonly domain: string;
  readonly verified: boolean;
  readonly createdAt: number;
}

export async function insertSenderDomain(db: Executor, domain: SenderDomain): Promise<void> {
  await db
    .insertInto('sender_domains')
    .values({ id: domain.id, account_id: domain.accountId, domain: domain.domain, verified: domain.verified ? 1 : 0, created_at: domain.createdAt })
    .execute();
}

export async function findSenderDomain(db: Executor, accountId: string, domain: string): Promise<SenderDomain | undefined> {
  const row = await db
    .selectFrom('sender_domains')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('domain', '=', domain)
    .executeTakeFirst();
  return row && { id: row.id, accountId: row.account_id, domain: row.domain, verified: row.verified === 1, createdAt: Number(row.created_at) };
}

export async function listSenderDomains(db: Executor, accountId: string): Promise<SenderDomain[]> {
  const rows = await db.selectFrom('sender_domains').selectAll().where('account_id', '=', accountId).orderBy('domain').execute();
  return rows.map((row) => ({ id: row.id, accountId: row.account_id, domain: row.domain, verified: row.verified === 1, createdAt: Number(row.created_at) }));
}
