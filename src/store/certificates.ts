import type { Executor } from './database.ts';

export interface StoredCertificate {
  readonly messageId: string;
  readonly accountId: string;
  /** The compact JWS. */
  readonly receipt: string;
  /** The certified MIME, one character per byte (latin1), so it reads back byte for byte. */
  readonly eml: string;
  readonly createdAt: number;
}

/** One certificate per message; call in the transaction that records the delivery. */
export async function insertCertificate(db: Executor, certificate: StoredCertificate): Promise<void> {
  await db
    .insertInto('certificates')
    .values({
      message_id: certificate.messageId, account_id: certificate.accountId, receipt: certificate.receipt,
      eml: certificate.eml, created_at: certificate.createdAt,
    })
    .execute();
}

/** Scoped by account: another account's msgid finds nothing. */
export async function findCertificate(db: Executor, accountId: string, messageId: string): Promise<StoredCertificate | undefined> {
  const row = await db
    .selectFrom('certificates')
    .selectAll()
    .where('message_id', '=', messageId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row && {
    messageId: row.message_id, accountId: row.account_id, receipt: row.receipt, eml: row.eml, createdAt: Number(row.created_at),
  };
}
