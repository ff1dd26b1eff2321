import type { Executor } from './database.ts';
import { loadText, storeText } from './mime-pieces.ts';

export interface StoredCertificate {
  readonly messageId: string;
  readonly accountId: string;
  /** The compact JWS. */
  readonly receipt: string;
  /** The certified MIME, one character per byte (latin1), so it reads back byte for byte. */
  readonly eml: string;
  readonly createdAt: number;
}

/**
 * One certificate per message; call in the transaction that records the delivery. The
 * .eml is kept as a layout over pieces its send keeps once (store/mime-pieces.ts).
 */
export async function insertCertificate(db: Executor, certificate: StoredCertificate): Promise<void> {
  const eml = await storeText(db, certificate.messageId, certificate.eml);
  await db
    .insertInto('certificates')
    .values({
      message_id: certificate.messageId, account_id: certificate.accountId, receipt: certificate.receipt,
      eml: eml.body, layout: eml.layout, created_at: certificate.createdAt,
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
    messageId: row.message_id, accountId: row.account_id, receipt: row.receipt,
    eml: await loadText(db, row.message_id, { body: row.eml, layout: row.layout }), createdAt: Number(row.created_at),
  };
}
