import { Buffer } from 'node:buffer';
import { domainToASCII } from 'node:url';
import emailAddresses from 'email-addresses';
import { BoundedCache } from '../cache/bounded-cache.ts';

// Control characters (C0, DEL, C1), Unicode line/paragraph separators, format
// characters (bidi overrides, zero-width joiners) and lone surrogates (UTF-16 halves
// that no UTF-8 text can carry; they would be stored as such): never legitimate in an
// address, and the first two would allow header injection.
const FORBIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]/u;
const LDH_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i;
const ALL_DIGITS = /^[0-9]+$/;

const utf8Length = (text: string): number => Buffer.byteLength(text, 'utf8');

// The RFC 5322 parser is the costliest step of accepting an email (tens of µs an
// address); senders repeat their From and Reply-To, so recent answers are remembered.
const REMEMBERED = 4096;
const MAX_REMEMBERED_LENGTH = 320;
const remembered = new BoundedCache<string, string | null>({ maxEntries: REMEMBERED });

/**
 * The addr-spec (trimmed) when `input` is exactly one RFC 5322 / RFC 6532 addr-spec
 * usable by a mail service, else null. Display names, angle brackets, comments and
 * groups are refused, so the value can go on the wire as is.
 */
export function parseAddress(input: string): string | null {
  if (typeof input !== 'string') return null;
  // Only what could be an address is remembered: a long string is refused cheaply anyway.
  if (input.length > MAX_REMEMBERED_LENGTH) return parseUncached(input);
  return remembered.obtain(input, () => parseUncached(input));
}

// The common address, ASCII dot-atom@dot-atom (RFC 5322 atext): the parser would take
// it as a bare addr-spec, so it is checked without it; anything else (quoted local
// parts, UTF-8, comments, names) goes through the parser. Cross-checked in
// test/domain/email-address-fast-path.test.ts.
const DOT_ATOM_ADDRESS = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+$/;

function parseUncached(input: string): string | null {
  if (FORBIDDEN.test(input)) return null;
  const candidate = input.trim();
  if (candidate === '' || utf8Length(candidate) > 254) return null;
  if (DOT_ATOM_ADDRESS.test(candidate)) {
    const at = candidate.lastIndexOf('@');
    return at <= 64 && isMailHostname(candidate.slice(at + 1)) ? candidate : null;
  }
  return parseWithParser(candidate);
}

/** The full RFC 5322 / 6532 check of a trimmed candidate (exported for the fast path's cross-check). */
export function parseWithParser(candidate: string): string | null {
  // strict: no obsolete syntax (obs-local-part with folding whitespace and the like).
  const parsed = emailAddresses.parseOneAddress({ input: candidate, rfc6532: true, strict: true, startAt: 'mailbox' });
  if (parsed === null || parsed.type !== 'mailbox') return null;
  // The parser accepts a whole mailbox (`Name <a@b>`, comments); only a bare
  // addr-spec whose raw text is the entire input, without CFWS, is accepted.
  if (parsed.name !== null || parsed.parts.comments.length > 0) return null;
  if (parsed.parts.address.tokens !== candidate) return null;

  if (utf8Length(parsed.parts.local.tokens) > 64) return null;
  if (!isMailHostname(parsed.parts.domain.tokens)) return null;
  return candidate;
}

/**
 * A hostname a message can be delivered to: dot-separated LDH or IDN labels, at least
 * two of them, checked on the ASCII (punycode) form. Address literals such as
 * `[1.2.3.4]` are rejected on purpose: a hosted sender delivers to names, not raw IPs.
 */
function isMailHostname(domain: string): boolean {
  if (domain.startsWith('[')) return false;
  const labels = domain.split('.');
  if (labels.length < 2) return false;
  const ascii = domainToASCII(domain);
  if (ascii === '' || ascii.length > 253) return false;
  const asciiLabels = ascii.split('.');
  // UTS 46 maps some characters (e.g. U+3002) to '.', which would change the labels.
  if (asciiLabels.length !== labels.length) return false;
  if (!asciiLabels.every((label) => LDH_LABEL.test(label))) return false;
  // An all-numeric last label is an IPv4 address in disguise, never a TLD.
  return !ALL_DIGITS.test(asciiLabels[asciiLabels.length - 1] ?? '');
}

/** The lower-cased domain of an address (the part after the last '@'). */
export function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}
