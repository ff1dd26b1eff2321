import { createHash, timingSafeEqual } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { Account } from '../domain/account.ts';
import { ALL_SCOPES, type Scope } from '../domain/access.ts';
import { TEST_KEY_PREFIX, type KeyMode } from '../domain/key-mode.ts';
import { findApiKey, insertApiKey, revokeApiKey, touchApiKey, type ApiKeyRecord } from '../store/api-keys.ts';

/** A key as the use cases hand it to a route (the caller of a request). */
export type { ApiKeyRecord };
import type { Executor } from '../store/database.ts';
import type { AppDeps } from './deps.ts';
import { cachedAccount } from './read-caches.ts';
import { BoundedCache } from '../cache/bounded-cache.ts';

// API keys are JWTs (the spec's bearer format) signed by the service: they carry the
// account (`sub`), the key id (`jti`) and the scopes. The signature rejects forged and
// malformed keys without touching the database; the stored SHA-256 of each key lets
// an operator revoke it. The key itself is shown once and never stored or logged.
// A test key (docs/sandbox.md) is `test_` + its JWT: the prefix lets a person see what
// they paste, and the stored hash covers it, so it cannot be added to a live key.

const ISSUER = 'herald';
const ALGORITHM = 'HS256';

export interface KeyDeps extends AppDeps {
  readonly signingSecret: Uint8Array;
  /** Keys verified lately (see VerifiedKeyCache); absent: every request verifies and looks up its key. */
  readonly verifiedKeys?: VerifiedKeyCache;
  /** When each key's last use was written here; absent: every use is written. */
  readonly keyUses?: KeyUseThrottle;
}

/** A key that passed every check, as remembered by VerifiedKeyCache. */
interface VerifiedKey {
  readonly key: ApiKeyRecord;
  /** The JWT's `exp` in seconds, checked again on every hit as jose checks it. */
  readonly exp: number | undefined;
}

/**
 * Keys verified in the last `ttlMs`, by the SHA-256 of the presented key: a hit skips
 * the JWT signature check and the key look-up (the account comes from the read cache,
 * app/read-caches.ts, evicted on changes made here and at most a second old otherwise). Revocation: revokeKey()
 * evicts the key in this process at once; a key revoked by another process (the CLI,
 * another API process) stops working here within `ttlMs` at most. Expiry is checked on
 * every hit. Only keys that passed are kept, and at most `maxEntries` of them (least
 * recently used go first), so a flood of bad keys cannot grow it.
 */
export class VerifiedKeyCache {
  readonly #entries: BoundedCache<string, VerifiedKey>;

  constructor(options: { ttlMs: number; maxEntries: number }) {
    this.#entries = new BoundedCache(options);
  }

  get(keyHash: string, now: number): VerifiedKey | undefined {
    return this.#entries.get(keyHash, now);
  }

  /** Kept for the cache's ttl from `now`, when the key was verified. */
  set(keyHash: string, entry: VerifiedKey, now: number): void {
    this.#entries.set(keyHash, entry, { now });
  }

  /** Forgets the key with this id (revoked). */
  evict(keyId: string): void {
    this.#entries.deleteWhere((entry) => entry.key.id === keyId);
  }
}

/** The service's cache: a key revoked by another process works here at most 5 s longer. */
export const newVerifiedKeyCache = (): VerifiedKeyCache => new VerifiedKeyCache({ ttlMs: 5000, maxEntries: 10_000 });

/**
 * A key's last use (time and address) is shown to the account "at most a minute old":
 * this process writes it when the key has not been written here for a minute, or is
 * used from another address, so a busy key costs one write a minute, not one a request.
 * Bounded: past `maxEntries` the least recently used key is forgotten (its next use writes).
 */
export class KeyUseThrottle {
  readonly #written: BoundedCache<string, { readonly at: number; readonly ip: string }>;
  constructor(maxEntries = 10_000) {
    this.#written = new BoundedCache({ maxEntries });
  }

  /** True when this use should be written (and remembers it as written). */
  due(keyId: string, ip: string, now: number): boolean {
    const last = this.#written.get(keyId);
    if (last !== undefined && last.ip === ip && now - last.at < KEY_USE_INTERVAL_MS) return false;
    this.#written.set(keyId, { at: now, ip });
    return true;
  }
}

export const KEY_USE_INTERVAL_MS = 60_000;

/** After a request passed authentication: the key's last use, written at most once a minute per address. */
export async function noteKeyUse(deps: KeyDeps, keyId: string, ip: string): Promise<void> {
  const now = deps.clock();
  if (deps.keyUses !== undefined && !deps.keyUses.due(keyId, ip, now)) return;
  await touchApiKey(deps.db, keyId, now, ip);
}

export interface IssuedKey {
  readonly id: string;
  readonly apiKey: string;
  readonly scopes: readonly Scope[];
  readonly expiresAt: number | null;
  readonly createdAt: number;
  readonly name: string;
  readonly mode: KeyMode;
}

const hashKey = (apiKey: string): string => createHash('sha256').update(apiKey).digest('hex');

export async function issueApiKey(
  deps: KeyDeps,
  db: Executor,
  accountId: string,
  options: { scopes?: readonly Scope[]; expiresAt?: number | null; name?: string; mode?: KeyMode } = {},
): Promise<IssuedKey> {
  const mode = options.mode ?? 'live';
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
  const signed = await jwt.sign(deps.signingSecret);
  const apiKey = mode === 'test' ? `${TEST_KEY_PREFIX}${signed}` : signed;
  await insertApiKey(db, { id, accountId, keyHash: hashKey(apiKey), scopes, createdAt: now, expiresAt, name: options.name ?? '', mode });
  return { id, apiKey, scopes, expiresAt, createdAt: now, name: options.name ?? '', mode };
}

export async function revokeKey(deps: AppDeps & Pick<KeyDeps, 'verifiedKeys'>, accountId: string, keyId: string): Promise<boolean> {
  const revoked = await revokeApiKey(deps.db, accountId, keyId, deps.clock());
  // Evicted after the commit: a request verifying meanwhile reads the revocation from the store.
  deps.verifiedKeys?.evict(keyId);
  return revoked;
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
  const keyHash = hashKey(apiKey);
  const now = deps.clock();
  const cached = deps.verifiedKeys?.get(keyHash, now);
  const verified = cached ?? (await verifyKey(deps, apiKey, keyHash, now));
  if (verified === undefined) return INVALID;
  const { key, exp } = verified;
  if (cached !== undefined) {
    // What verifyKey checked that time can change: expiry (jose's rule, and the stored one).
    if (exp !== undefined && exp <= Math.floor(now / 1000)) return INVALID;
    if (key.expiresAt !== null && key.expiresAt <= now) return INVALID;
    if (!timingSafeEqual(Buffer.from(keyHash, 'hex'), Buffer.from(key.keyHash, 'hex'))) return INVALID;
  } else {
    deps.verifiedKeys?.set(keyHash, verified, now);
  }
  const account = await cachedAccount(deps, key.accountId);
  if (!account) return INVALID;
  return { kind: 'authenticated', account, key };
}

/** The full check: signature and claims (jose), then the stored key (revocation, expiry, hash). */
async function verifyKey(deps: KeyDeps, apiKey: string, keyHash: string, now: number): Promise<VerifiedKey | undefined> {
  let keyId: string;
  let exp: number | undefined;
  try {
    // The JWT of a test key follows its prefix; the stored hash (of the whole key) and mode decide the rest.
    const jwt = apiKey.startsWith(TEST_KEY_PREFIX) ? apiKey.slice(TEST_KEY_PREFIX.length) : apiKey;
    const { payload } = await jwtVerify(jwt, deps.signingSecret, {
      issuer: ISSUER,
      algorithms: [ALGORITHM],
      currentDate: new Date(now),
    });
    if (typeof payload.jti !== 'string' || typeof payload.sub !== 'string') return undefined;
    keyId = payload.jti;
    exp = payload.exp;
  } catch {
    return undefined;
  }
  const key = await findApiKey(deps.db, keyId);
  if (!key || key.revokedAt !== null) return undefined;
  if (key.expiresAt !== null && key.expiresAt <= now) return undefined;
  if (!timingSafeEqual(Buffer.from(keyHash, 'hex'), Buffer.from(key.keyHash, 'hex'))) return undefined;
  return { key, exp };
}
