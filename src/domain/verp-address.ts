import { createHmac, timingSafeEqual } from 'node:crypto';
import { purposeKey } from './signed-token.ts';

// The per-message envelope sender (VERP): `b+<msgid>-<tag>@<bounce domain>`, where
// the tag is the first 16 hex digits (64 bits) of HMAC-SHA256(msgid) under a key
// derived (HKDF-SHA256) from the installation secret with a label of its own. A DSN
// or complaint names its message by this address; without the tag anyone who knows a
// msgid (it is in every message's Message-ID) could write one. Hex, lower case:
// mail systems may change the case of a local part, and the tag survives it.
// docs/bounces.md tells the form, the check and the window for older untagged addresses.

/** Hex digits of the tag: 64 bits, each guess costing an SMTP transaction. */
export const VERP_TAG_LENGTH = 16;
const KEY_LABEL = 'herald verp tags v1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// Read leniently (any short run of letters and digits), so a wrong tag is a forgery to count, not an unknown mailbox.
const TAG = /^[0-9a-z]{1,64}$/;

/** A VERP address as it was read: the msgid, and its tag (null when the address has none: written before tags). */
export interface VerpParts {
  readonly msgid: string;
  readonly tag: string | null;
}

/** Writes and checks the tags of an installation secret. */
export interface VerpTags {
  /** The envelope sender of a message: `b+<msgid>-<tag>@<bounceDomain>`. */
  address(msgid: string, bounceDomain: string): string;
  /** Whether `tag` is the msgid's, compared in constant time. */
  verify(msgid: string, tag: string): boolean;
}

/** The tags of an installation secret (its key derived once per secret: domain/signed-token.ts). */
export function verpTags(installationSecret: Uint8Array): VerpTags {
  const key = purposeKey(installationSecret, KEY_LABEL);
  const tagOf = (msgid: string): string => createHmac('sha256', key).update(msgid.toLowerCase()).digest('hex').slice(0, VERP_TAG_LENGTH);
  return {
    address: (msgid, bounceDomain) => `b+${msgid}-${tagOf(msgid)}@${bounceDomain}`,
    verify(msgid, tag) {
      const expected = Buffer.from(tagOf(msgid));
      const given = Buffer.from(tag.toLowerCase());
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}

/**
 * The msgid and tag of a VERP address of `bounceDomain` (`b+<msgid>-<tag>@…`, or the
 * untagged `b+<msgid>@…` of before), angle brackets and case ignored; null for any other address.
 */
export function parseVerp(address: string, bounceDomain: string): VerpParts | null {
  const text = address.trim().replace(/^<|>$/g, '').toLowerCase();
  const at = text.lastIndexOf('@');
  if (at < 0 || text.slice(at + 1) !== bounceDomain.toLowerCase()) return null;
  const local = text.slice(0, at);
  if (!local.startsWith('b+')) return null;
  const msgid = local.slice(2, 38);
  if (!UUID.test(msgid)) return null;
  const rest = local.slice(38);
  if (rest === '') return { msgid, tag: null };
  return rest.startsWith('-') && TAG.test(rest.slice(1)) ? { msgid, tag: rest.slice(1) } : null;
}
