import { hkdfSync } from 'node:crypto';
import { SignJWT, errors, jwtVerify } from 'jose';

// The token in a double opt-in confirmation link: a compact JWS (HS256) naming the
// account, the contact and the list, valid for CONFIRMATION_LINK_DAYS. Its key is
// derived (HKDF-SHA256) from the installation secret with a label of its own, so it
// can never pass for a tracking token or an API key, and a forged or altered token is
// refused by the signature before any database look-up. An expired token is told
// apart (its signature checked first) so the page can say so.

/** How long a confirmation link works after its email was handed to the transport that sent it (where it is signed). */
export const CONFIRMATION_LINK_DAYS = 7;
const LIFETIME_SECONDS = CONFIRMATION_LINK_DAYS * 86_400;

export interface ConfirmationClaims {
  readonly accountId: string;
  readonly contactId: string;
  readonly listId: string;
}

export type ConfirmationCheck =
  | { readonly kind: 'valid'; readonly claims: ConfirmationClaims }
  | { readonly kind: 'expired' }
  | { readonly kind: 'invalid' };

export interface ConfirmationTokens {
  sign(claims: ConfirmationClaims, now: number): Promise<string>;
  verify(token: string, now: number): Promise<ConfirmationCheck>;
}

const ALGORITHM = 'HS256';
const KEY_LABEL = 'herald consent tokens v1';
const KIND = 'confirm';
const MAX_TOKEN_LENGTH = 1024;
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const INVALID: ConfirmationCheck = { kind: 'invalid' };

const cache = new WeakMap<Uint8Array, ConfirmationTokens>();

/** The signer and verifier of an installation secret, made once per secret. */
export function confirmationTokens(installationSecret: Uint8Array): ConfirmationTokens {
  let tokens = cache.get(installationSecret);
  if (tokens === undefined) {
    tokens = makeTokens(installationSecret);
    cache.set(installationSecret, tokens);
  }
  return tokens;
}

function makeTokens(installationSecret: Uint8Array): ConfirmationTokens {
  const derived = new Uint8Array(hkdfSync('sha256', installationSecret, new Uint8Array(0), KEY_LABEL, 32));
  const key = crypto.subtle.importKey('raw', derived, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  return {
    async sign(claims, now) {
      return new SignJWT({ k: KIND, a: claims.accountId, c: claims.contactId, l: claims.listId })
        .setProtectedHeader({ alg: ALGORITHM })
        .setExpirationTime(Math.floor(now / 1000) + LIFETIME_SECONDS)
        .sign(await key);
    },
    async verify(token, now) {
      if (token.length > MAX_TOKEN_LENGTH || !COMPACT_JWS.test(token)) return INVALID;
      let payload: Record<string, unknown>;
      try {
        ({ payload } = await jwtVerify(token, await key, { algorithms: [ALGORITHM], currentDate: new Date(now), requiredClaims: ['exp'] }));
      } catch (error) {
        // jose checks the signature before the claims: an expired token is one we signed.
        return error instanceof errors.JWTExpired ? { kind: 'expired' } : INVALID;
      }
      const { k, a, c, l } = payload;
      if (k !== KIND || typeof a !== 'string' || typeof c !== 'string' || typeof l !== 'string') return INVALID;
      return { kind: 'valid', claims: { accountId: a, contactId: c, listId: l } };
    },
  };
}
