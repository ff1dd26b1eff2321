import { createHmac, createSecretKey, hkdfSync, type KeyObject, type webcrypto } from 'node:crypto';
import { errors, jwtVerify } from 'jose';

// herald's one module for what it signs with the installation secret for a purpose:
// the links it mails (tracking and unsubscribe: domain/tracking-token.ts; double opt-in
// confirmation: campaigns/consent-token.ts) and the VERP tags of envelope senders
// (domain/verp-address.ts). Each purpose has a label; its key is derived from the secret
// with it (HKDF-SHA256, empty salt, the label as info, 32 bytes), once per secret, so a
// token of one purpose can never pass for another's or for an API key (signed with the
// secret itself). A token is a compact JWS (HS256) whose payload names what it is for
// and until when (`exp`, seconds); a forged or altered one is refused by its signature,
// before any database look-up.
//
// Not here, on purpose: invitation and password-reset links carry a random token stored
// hashed (app/sessions.ts newToken), since each works once and is voided by the next;
// API keys are JWTs signed with the secret itself (app/api-keys.ts), kept so every key
// issued still verifies.

const ALGORITHM = 'HS256';
/** The protected header of every token, encoded once: `{"alg":"HS256"}`, as jose's SignJWT writes it. */
const HEADER = Buffer.from(JSON.stringify({ alg: ALGORITHM })).toString('base64url');
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** The keys of one purpose: node:crypto's for signing and HMAC tags, WebCrypto's (made at the first verify) for jose's. */
interface PurposeKeys {
  readonly signing: KeyObject;
  verifying: Promise<webcrypto.CryptoKey> | undefined;
}

// Derived keys by secret, then by label. A WeakMap: the keys go with their secret (one
// per installation, a few in tests), and the labels are this file's callers' constants.
const keyrings = new WeakMap<Uint8Array, Map<string, PurposeKeys>>();

function purposeKeys(secret: Uint8Array, label: string): PurposeKeys {
  let keyring = keyrings.get(secret);
  if (keyring === undefined) keyrings.set(secret, (keyring = new Map()));
  let keys = keyring.get(label);
  if (keys === undefined) {
    const derived = new Uint8Array(hkdfSync('sha256', secret, new Uint8Array(0), label, 32));
    // A KeyObject: createHmac given raw bytes checks and copies them on every call (≈ 40 µs,
    // against 6 µs with the KeyObject made once).
    keys = { signing: createSecretKey(derived), verifying: undefined };
    keyring.set(label, keys);
  }
  return keys;
}

/** The key derived from `secret` for the purpose `label`, for HMACs that are not tokens (VERP tags). */
export const purposeKey = (secret: Uint8Array, label: string): KeyObject => purposeKeys(secret, label).signing;

/** What verify found: the payload of a token of ours still valid, one of ours expired, or anything else. */
export type TokenCheck =
  | { readonly kind: 'valid'; readonly payload: Readonly<Record<string, unknown>> }
  | { readonly kind: 'expired' }
  | { readonly kind: 'invalid' };

const INVALID: TokenCheck = { kind: 'invalid' };
const EXPIRED: TokenCheck = { kind: 'expired' };

export interface SignedTokens {
  /** The token of `claims` (written in the order given) valid until `exp` (seconds since the epoch), written last. */
  sign(claims: Readonly<Record<string, string | number>>, exp: number): string;
  /** Checks the signature, then `exp` against `now` (ms); text over the length limit or not a compact JWS is invalid unread. */
  verify(token: string, now: number): Promise<TokenCheck>;
}

/**
 * The tokens of one purpose under `secret`. Signing is node:crypto's HMAC, synchronous,
 * writing the compact JWS jose's SignJWT writes (a WebCrypto sign per token, a job on
 * the thread pool, cost a campaign message more than the HMAC itself); verification is
 * jose's (constant-time, checks the header, requires `exp`).
 */
export function signedTokens(secret: Uint8Array, label: string, options: { readonly maxLength: number }): SignedTokens {
  const keys = purposeKeys(secret, label);
  return {
    sign(claims, exp) {
      const signingInput = `${HEADER}.${Buffer.from(JSON.stringify({ ...claims, exp })).toString('base64url')}`;
      return `${signingInput}.${createHmac('sha256', keys.signing).update(signingInput).digest('base64url')}`;
    },
    async verify(token, now) {
      if (token.length > options.maxLength || !COMPACT_JWS.test(token)) return INVALID;
      try {
        keys.verifying ??= crypto.subtle.importKey('raw', keys.signing.export(), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
        const { payload } = await jwtVerify(token, await keys.verifying, { algorithms: [ALGORITHM], currentDate: new Date(now), requiredClaims: ['exp'] });
        return { kind: 'valid', payload };
      } catch (error) {
        // jose checks the signature before the claims: an expired token is one we signed.
        return error instanceof errors.JWTExpired ? EXPIRED : INVALID;
      }
    },
  };
}
