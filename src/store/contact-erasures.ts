import { createHash } from 'node:crypto';
import type { Executor } from './database.ts';

// The audit trail of erasures, and what an erasure clears besides the contact row (whose
// subscriptions and list consent history go with it by foreign key).

/** The pseudonym an erasure row keeps instead of the address: hex SHA-256 of the account id and the address. */
export const erasedAddressDigest = (accountId: string, address: string): string =>
  createHash('sha256').update(`${accountId}\n${address.toLowerCase()}`).digest('hex');

export async function recordErasure(db: Executor, row: { id: string; accountId: string; contactId: string; address: string; at: number }): Promise<void> {
  await db.insertInto('contact_erasures').values({
    id: row.id, account_id: row.accountId, contact_id: row.contactId, address_digest: erasedAddressDigest(row.accountId, row.address), at: row.at,
  }).execute();
}

/** When the address was erased from the account (each time, oldest first). */
export async function erasuresOf(db: Executor, accountId: string, address: string): Promise<{ contactId: string; at: number }[]> {
  const rows = await db.selectFrom('contact_erasures').select(['contact_id', 'at'])
    .where('account_id', '=', accountId).where('address_digest', '=', erasedAddressDigest(accountId, address)).orderBy('id').execute();
  return rows.map((r) => ({ contactId: r.contact_id, at: Number(r.at) }));
}

/** The contact's messages keep their log entry (billing, delivery) but no longer point at the erased contact. */
export async function unlinkContactMessages(db: Executor, accountId: string, contactId: string): Promise<void> {
  await db.updateTable('messages').set({ contact_id: null }).where('account_id', '=', accountId).where('contact_id', '=', contactId).execute();
}

/** Ids of what the address sent the account by email (inbound), at most `limit`. */
export async function inboundEmailFrom(db: Executor, accountId: string, address: string, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('inbound_messages').select('id')
    .where('account_id', '=', accountId).where('channel', '=', 'email').where((eb) => eb(eb.fn('lower', ['sender']), '=', address.toLowerCase()))
    .orderBy('id').limit(limit).execute();
  return rows.map((r) => r.id);
}
