import { refineNewOwnKey, type CheckedNewOwnKey } from '../domain/account-input.ts';
import type { KeyMode } from '../domain/key-mode.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import { needsOwner } from '../domain/grantable-scopes.ts';
import { findApiKey, listApiKeys, type ApiKeyRecord } from '../store/api-keys.ts';
import { issueApiKey, revokeKey, type IssuedKey, type KeyDeps } from './api-keys.ts';

export type { ApiKeyRecord };

// /v1/api-keys: the account's own keys. A key is shown once, when it is made; only its
// SHA-256 is stored (app/api-keys.ts). Only a caller at owner level may hand out the
// `account` scope, which is owner level itself: a developer cannot make themselves one,
// and by the same rule cannot revoke one (an owner's key) either.
// A test key makes and revokes test keys only (docs/sandbox.md): whatever its scopes, it
// cannot hand itself a way out of the sandbox.

/** Who makes or revokes a key: at owner level or not, and the mode of the caller (a user: live). */
export interface KeyMaker {
  readonly isOwner: boolean;
  readonly mode: KeyMode;
}

const TEST_KEYS_MAKE_TEST_KEYS = 'mode: a test key makes only test keys ("mode": "test")';
const TEST_KEYS_REVOKE_TEST_KEYS = 'a test key revokes only test keys';


export async function listOwnKeys(deps: KeyDeps, accountId: string): Promise<readonly ApiKeyRecord[]> {
  return listApiKeys(deps.db, accountId);
}

/** POST /v1/api-keys, its body checked by the route's schema. */
export async function createOwnKey(deps: KeyDeps, accountId: string, body: CheckedNewOwnKey, caller: KeyMaker): Promise<Result<IssuedKey>> {
  const input = refineNewOwnKey(body, deps.clock());
  if (!input.ok) return input;
  const mode = input.value.mode ?? caller.mode;
  if (caller.mode === 'test' && mode !== 'test') return reject('testKeyRefused', { detail: TEST_KEYS_MAKE_TEST_KEYS });
  if (needsOwner(input.value.scopes) && !caller.isOwner) {
    return reject('invalidField', { detail: 'scopes: only an owner may give a key the "account" scope' });
  }
  return ok(await issueApiKey(deps, deps.db, accountId, { ...input.value, mode }));
}

/**
 * Revokes one of the account's keys; another account's key, or one already revoked, is
 * not found; a key the caller could not have made (the `account` scope, for a caller
 * below owner) is refused as the route's access refusal is: keyNotAuthorized; a test key
 * revokes only test keys.
 */
export async function revokeOwnKey(deps: KeyDeps, accountId: string, keyId: string, caller: KeyMaker): Promise<Result<undefined>> {
  const key = await findApiKey(deps.db, keyId);
  if (key === undefined || key.accountId !== accountId || key.revokedAt !== null) return reject('notFound');
  if (caller.mode === 'test' && key.mode !== 'test') return reject('testKeyRefused', { detail: TEST_KEYS_REVOKE_TEST_KEYS });
  if (needsOwner(key.scopes) && !caller.isOwner) return reject('keyNotAuthorized');
  return (await revokeKey(deps, accountId, keyId)) ? ok(undefined) : reject('notFound');
}
