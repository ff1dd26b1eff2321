import { createPrivateKey, type KeyObject } from 'node:crypto';
import type { DKIMOptions } from 'nodemailer';
import { BoundedCache } from '../../cache/bounded-cache.ts';

/**
 * The signing key of an account's sender domain, or undefined when there is none: a
 * domain verified by hand (or by an operator) before herald generated DKIM keys has no
 * key, and its mail goes out unsigned rather than not at all — SPF on the bounce domain
 * still passes, and the domain gains a key the next time its records are shown.
 */
export type DkimKeyLookup = (accountId: string, domain: string) => Promise<{ selector: string; privateKey: string } | undefined>;

/** A lookup that never finds a key: every message unsigned (tests, or no sender domains). */
export const noDkimKeys: DkimKeyLookup = async () => undefined;

/**
 * nodemailer's default list (RFC 6376 §5.4.1) plus List-Unsubscribe-Post: RFC 8058 §4
 * requires a valid DKIM signature covering both List-Unsubscribe and
 * List-Unsubscribe-Post before a receiver offers one-click unsubscribe.
 */
export const DKIM_SIGNED_HEADERS = [
  'From', 'Sender', 'Reply-To', 'Subject', 'Date', 'Message-ID', 'To', 'Cc', 'MIME-Version', 'Content-Type',
  'Content-Transfer-Encoding', 'Content-ID', 'Content-Description', 'Resent-Date', 'Resent-From', 'Resent-Sender',
  'Resent-To', 'Resent-Cc', 'Resent-Message-ID', 'In-Reply-To', 'References', 'List-Id', 'List-Help',
  'List-Unsubscribe', 'List-Unsubscribe-Post', 'List-Subscribe', 'List-Post', 'List-Owner', 'List-Archive',
] as const;

/**
 * nodemailer's signer options for the sender domain's key, or undefined when there is no
 * key. nodemailer signs rsa-sha256 only and, given a key it cannot use, silently sends
 * the message unsigned; a stored key that is not RSA or does not parse is therefore a
 * thrown error here (the outbox retries a throwing transport and logs why).
 */
export async function dkimSigningOptions(lookup: DkimKeyLookup, accountId: string, fromAddress: string): Promise<DKIMOptions | undefined> {
  const domain = domainOf(fromAddress);
  const key = await lookup(accountId, domain);
  if (key === undefined) return undefined;
  let privateKey: KeyObject;
  try {
    privateKey = parsedKey(key.privateKey);
  } catch {
    throw new Error(`the DKIM key of ${domain} (selector ${key.selector}) does not parse`);
  }
  const keyType = privateKey.asymmetricKeyType;
  if (keyType !== 'rsa') throw new Error(`the DKIM key of ${domain} (selector ${key.selector}) is ${keyType ?? 'unknown'}, not RSA`);
  // nodemailer hands privateKey to crypto's Sign.sign(), which takes a KeyObject as well
  // as PEM (its types say string): the parsed key spares a PEM parse per message.
  return { domainName: domain, keySelector: key.selector, privateKey: privateKey as unknown as string, headerFieldNames: DKIM_SIGNED_HEADERS.join(':') };
}

// Parsed keys by their PEM text: parsing RSA PEM costs more than a tenth of the
// signature itself. A domain whose key changes brings a new PEM, so a new entry.
const PARSED_KEYS_MAX = 1000;
const parsedKeys = new BoundedCache<string, KeyObject>({ maxEntries: PARSED_KEYS_MAX });

const parsedKey = (pem: string): KeyObject => parsedKeys.obtain(pem, () => createPrivateKey(pem));

function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}
