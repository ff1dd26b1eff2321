import type { Kysely } from 'kysely';
import { accountRow, createTable, required, stamps, unique } from './column-kit.ts';

// Issue 24, the audience: saved segments, and the audit trail of contacts erased.
export async function up(db: Kysely<unknown>): Promise<void> {
  // An audience kept by name so a campaign or a count can start from it. definition: JSON
  // {lists, exclude_lists, filter?} in the filter language of campaigns/segment-filter.ts.
  // A name is the account's once.
  await createTable(db, 'segments', [accountRow, required('text', 'name', 'definition'), stamps, unique('segments_account_name', ['account_id', 'name'])]);

  // One row per contact erased (DELETE /v1/contacts/:id): when, which contact id, and
  // address_digest, the SHA-256 of the account id and the lower-cased address (hex), so
  // "was this address erased, and when?" is answered for an address one already has,
  // while the row itself holds no address (docs/campaigns.md, "Erasure").
  await createTable(db, 'contact_erasures', [accountRow, required('text', 'contact_id', 'address_digest'), required('bigint', 'at')]);
  await db.schema.createIndex('contact_erasures_digest').on('contact_erasures').columns(['account_id', 'address_digest']).execute();
}
