import { isScope, type Scope } from '../domain/access.ts';
import type { KeyMode } from '../domain/key-mode.ts';
import type { ApiKeyRow, Executor } from './database.ts';

export interface ApiKeyRecord {
  readonly id: string;
  readonly accountId: string;
  readonly keyHash: string;
  readonly scopes: readonly Scope[];
  readonly createdAt: number;
  readonly expiresAt: number | null;
  readonly revokedAt: number | null;
  /** What the account calls it; '' for keys from before names. */
  readonly name: string;
  readonly lastUsedAt: number | null;
  readonly lastUsedIp: string | null;
  /** A test key's messages go through the capture transports, unbilled (docs/sandbox.md). */
  readonly mode: KeyMode;
}

const toRecord = (row: ApiKeyRow): ApiKeyRecord => ({
  id: row.id,
  accountId: row.account_id,
  keyHash: row.key_hash,
  // A word that is no scope (none is written) grants nothing.
  scopes: row.scopes.split(' ').filter(isScope),
  createdAt: Number(row.created_at),
  expiresAt: row.expires_at === null ? null : Number(row.expires_at),
  revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  name: row.name,
  lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
  lastUsedIp: row.last_used_ip,
  // Only 'test' is a test key: anything else written by hand is live, as every key before.
  mode: row.mode === 'test' ? 'test' : 'live',
});

export async function insertApiKey(db: Executor, key: Omit<ApiKeyRecord, 'revokedAt' | 'lastUsedAt' | 'lastUsedIp'>): Promise<void> {
  await db
    .insertInto('api_keys')
    .values({
      id: key.id, account_id: key.accountId, key_hash: key.keyHash, scopes: key.scopes.join(' '),
      created_at: key.createdAt, expires_at: key.expiresAt, revoked_at: null, name: key.name, mode: key.mode,
    })
    .execute();
}

export async function findApiKey(db: Executor, id: string): Promise<ApiKeyRecord | undefined> {
  const row = await db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toRecord(row);
}

export async function listApiKeys(db: Executor, accountId: string): Promise<ApiKeyRecord[]> {
  const rows = await db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
  return rows.map(toRecord);
}

/** Marks the key revoked; returns false when the account has no such (unrevoked) key. */
export async function revokeApiKey(db: Executor, accountId: string, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Records a use of the key: when and from where (the caller throttles it to about once a minute). */
export async function touchApiKey(db: Executor, id: string, at: number, ip: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at, last_used_ip: ip }).where('id', '=', id).execute();
}
