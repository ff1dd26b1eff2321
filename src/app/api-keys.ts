import { createHash, timingSafeEqual } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { ALL_SCOPES, type Account, type Scope } from '../domain/account.ts';
import { findAccount } from '../store/accounts.ts';
import { findApiKey, insertApiKey, revokeApiKey, type ApiKeyRecord } from '../store/api-keys.ts';
import type { Executor } from '../store/database.ts';
import type { AppDeps } from './deps.ts';

// API keys are JWTs (the spec's bearer format) signed by the service: they carry the
// account (`sub`), the key id (`jti`) and the scopes. The signature rejects forged and
// malformed keys without touching the database; the stored SHA-256 of each key lets
// an operator revoke it. The key itself is shown once and never stored or logged.

const ISSUER = 'herald';
const ALGORITHM = 'HS256';

export interface KeyDeps extends AppDeps {
  readonly signingSecret: Uint8Array;
}

export interface IssuedKey {
  readonly id: string;
  readonly apiKey: string;
  readonly scopes: readonly Scope[];
  readonly expiresAt: number | null;
}

const hashKey = (apiKey: string): string => createHash('sha256').update(apiKey).digest('hex');

export async function issueApiKey(
  deps: KeyDeps,
  db: Executor,
  accountId: string,
  options: { scopes?: readonly Scope[]; expiresAt?: number | null } = {},
): Promise<IssuedKey> {
  const id = deps.newId();
  const scopes = options.scopes ?? ALL_SCOPES;
  const expiresAt = options.expiresAt ?? null;
  const now = deps.clock();
  const jwt = new SignJWT({ scope: scopes.join(' ') })
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setIssuer(ISSUER)
    .setSubject(accountId)
    .setJti(id)
    .setIssuedAt(Math.floor(now / 1000));
  if (expiresAt !== null) jwt.setExpirationTime(Math.floor(expiresAt / 1000));
  const apiKey = await jwt.sign(deps.signingSecret);
  await insertApiKey(db, { id, accountId, keyHash: hashKey(apiKey), scopes, createdAt: now, expiresAt });
  return { id, apiKey, scopes, expiresAt };
}

export async function revokeKey(deps: AppDeps, accountId: string, keyId: string): Promise<boolean> {
  return revokeApiKey(deps.db, accountId, keyId, deps.clock());
}

export type Authentication =
  | { readonly kind: 'authenticated'; readonly account: Account; readonly key: ApiKeyRecord }
  | { readonly kind: 'invalid' };

const INVALID: Authentication = { kind: 'invalid' };

/**
 * Resolves a presented key to its account. Returns `invalid` for anything a client
 * got wrong (bad signature, unknown, revoked, expired); throws only when the store
 * itself fails, which the HTTP layer answers with the spec's 500.
 */
export async function authenticateApiKey(deps: KeyDeps, apiKey: string): Promise<Authentication> {
  let keyId: string;
  try {
    const { payload } = await jwtVerify(apiKey, deps.signingSecret, {
      issuer: ISSUER,
      algorithms: [ALGORITHM],
      currentDate: new Date(deps.clock()),
    });
    if (typeof payload.jti !== 'string' || typeof payload.sub !== 'string') return INVALID;
    keyId = payload.jti;
  } catch {
    return INVALID;
  }
  const key = await findApiKey(deps.db, keyId);
  if (!key || key.revokedAt !== null) return INVALID;
  if (key.expiresAt !== null && key.expiresAt <= deps.clock()) return INVALID;
  const presented = Buffer.from(hashKey(apiKey), 'hex');
  if (!timingSafeEqual(presented, Buffer.from(key.keyHash, 'hex'))) return INVALID;
  const account = await findAccount(deps.db, key.accountId);
  if (!account) return INVALID;
  return { kind: 'authenticated', account, key };
}
