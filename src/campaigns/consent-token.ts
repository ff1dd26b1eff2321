import { signedTokens } from '../domain/signed-token.ts';

// The token in a double opt-in confirmation link: a compact JWS (HS256) naming the
// account, the contact and the list, valid for CONFIRMATION_LINK_DAYS, signed and
// checked by domain/signed-token.ts under a label of its own, so it can never pass for
// a tracking token or an API key. An expired token is told apart (its signature
// checked first) so the page can say so.

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

const KEY_LABEL = 'herald consent tokens v1';
const KIND = 'confirm';
const MAX_TOKEN_LENGTH = 1024;
const INVALID: ConfirmationCheck = { kind: 'invalid' };

/** The signer and verifier of an installation secret (its key derived once: domain/signed-token.ts). */
export function confirmationTokens(installationSecret: Uint8Array): ConfirmationTokens {
  const tokens = signedTokens(installationSecret, KEY_LABEL, { maxLength: MAX_TOKEN_LENGTH });
  return {
    async sign(claims, now) {
      return tokens.sign({ k: KIND, a: claims.accountId, c: claims.contactId, l: claims.listId }, Math.floor(now / 1000) + LIFETIME_SECONDS);
    },
    async verify(token, now) {
      const checked = await tokens.verify(token, now);
      if (checked.kind !== 'valid') return checked;
      const { k, a, c, l } = checked.payload;
      if (k !== KIND || typeof a !== 'string' || typeof c !== 'string' || typeof l !== 'string') return INVALID;
      return { kind: 'valid', claims: { accountId: a, contactId: c, listId: l } };
    },
  };
}
