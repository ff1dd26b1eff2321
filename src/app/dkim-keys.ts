import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { DKIM_KEY_BITS, dkimSelectorAt } from '../domain/sender-domain.ts';
import { BoundedCache } from '../cache/bounded-cache.ts';
import type { Db } from '../store/database.ts';
import { findDkimPrivateKey, type DkimKeyPair } from '../store/sender-domains.ts';

const generateRsa = promisify(generateKeyPair);

/**
 * A fresh DKIM key pair: RSA 2048 (RFC 8301's floor for signers, and still fits one
 * TXT record of two strings), private key as PKCS#8 PEM for the signer, public key as
 * base64 DER SubjectPublicKeyInfo, which is exactly the DKIM record's `p=` tag.
 * Generation takes tens of milliseconds on the libuv pool, off the event loop.
 */
export async function generateDkimKeys(now: number): Promise<DkimKeyPair> {
  const { privateKey, publicKey } = await generateRsa('rsa', {
    modulusLength: DKIM_KEY_BITS,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { selector: dkimSelectorAt(now), privateKey, publicKey: publicKey.toString('base64') };
}

/** 256 random bits, base64url: unguessable, and safe in a TXT record and a URL. */
export function newVerificationToken(): string {
  return randomBytes(32).toString('base64url');
}

export type DkimKey = { selector: string; privateKey: string };
export type DkimKeyLookup = (accountId: string, domain: string) => Promise<DkimKey | undefined>;

/** The lookup's defaults: an answer is reused a minute, for at most 10,000 domains. */
export const DKIM_LOOKUP_TTL_MS = 60_000;
export const DKIM_LOOKUP_ENTRIES = 10_000;

export interface DkimLookupOptions {
  /** How long an answer (a key or "none") is reused; default 60 s. */
  readonly ttlMs?: number;
  readonly clock?: () => number;
  /** Entries kept at most; past it the least recently used goes. */
  readonly maxEntries?: number;
}

/**
 * The signing key of an account's verified sender domain, for the email transports
 * at delivery; undefined for an unknown or unverified domain or one without a key
 * (mail then goes unsigned). Called per message, so answers — "no key" included —
 * are cached for a minute: a newly verified domain is signed at most that much later.
 */
export function dkimKeyLookup(db: Db, options: DkimLookupOptions = {}): DkimKeyLookup {
  const clock = options.clock ?? Date.now;
  // null: the domain has no key (an answer kept like a key).
  const cache = new BoundedCache<string, DkimKey | null>({ ttlMs: options.ttlMs ?? DKIM_LOOKUP_TTL_MS, maxEntries: options.maxEntries ?? DKIM_LOOKUP_ENTRIES });

  return async (accountId, domain) => {
    const name = domain.toLowerCase();
    const cacheKey = `${accountId}\n${name}`;
    const now = clock();
    const hit = cache.get(cacheKey, now);
    if (hit !== undefined) return hit ?? undefined;
    const key = await findDkimPrivateKey(db, accountId, name);
    cache.set(cacheKey, key ?? null, { now });
    return key;
  };
}
