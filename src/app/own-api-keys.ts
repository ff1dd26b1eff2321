import { parseNewOwnKey } from '../domain/account-input.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import { listApiKeys, type ApiKeyRecord } from '../store/api-keys.ts';
import { issueApiKey, revokeKey, type IssuedKey, type KeyDeps } from './api-keys.ts';

export type { ApiKeyRecord };

// /v1/api-keys: the account's own keys. A key is shown once, when it is made; only its
// SHA-256 is stored (app/api-keys.ts). Only a caller at owner level may hand out the
// `account` scope, which is owner level itself: a developer cannot make themselves one.

export async function listOwnKeys(deps: KeyDeps, accountId: string): Promise<readonly ApiKeyRecord[]> {
  return listApiKeys(deps.db, accountId);
}

export async function createOwnKey(deps: KeyDeps, accountId: string, body: unknown, callerIsOwner: boolean): Promise<Result<IssuedKey>> {
  const input = parseNewOwnKey(body, deps.clock());
  if (!input.ok) return input;
  if (input.value.scopes.includes('account') && !callerIsOwner) {
    return reject('invalidField', { detail: 'scopes: only an owner may give a key the "account" scope' });
  }
  return ok(await issueApiKey(deps, deps.db, accountId, input.value));
}

/** Revokes one of the account's keys; another account's key, or one already revoked, is not found. */
export async function revokeOwnKey(deps: KeyDeps, accountId: string, keyId: string): Promise<Result<undefined>> {
  return (await revokeKey(deps, accountId, keyId)) ? ok(undefined) : reject('notFound');
}
