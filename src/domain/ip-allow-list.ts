// An account's IP allow-list for its API keys: IPv4/IPv6 addresses and CIDR ranges.
//
// Accepted entry text: dotted four-part decimal IPv4 (no leading zeros, no `10` or hex
// shorthands that ipaddr.js would otherwise read), or IPv6 without a zone id (`%eth0`),
// each optionally followed by `/prefix` (decimal, no leading zeros, ≤ 32 or ≤ 128).
// No surrounding whitespace is trimmed: the list is stored data, callers split it.
//
// Every entry and every client address is held as IPv6, IPv4 as its IPv4-mapped form
// (`::ffff:a.b.c.d`, prefix + 96). So `::ffff:192.0.2.7` (how Node reports IPv4 clients
// on dual-stack sockets) matches `192.0.2.7`, and an IPv4 client matches a mapped entry.
//
// Canonical text (normaliseAllowList): a single address stays bare (`192.0.2.7`, `::1`;
// an explicit /32 or /128 loses it), a range is its network address plus prefix
// (`10.0.0.1/8` → `10.0.0.0/8`), IPv6 is RFC 5952 text, and IPv4-mapped entries are
// written as IPv4 (`::ffff:192.0.2.0/120` → `192.0.2.0/24`). Duplicates after that are
// dropped, first occurrence kept.

import ipaddr from 'ipaddr.js';
import { echoText } from './json-object.ts';
import { ok, reject, type Result } from './result.ts';

interface IpRange {
  /** Network address, IPv4 held as IPv4-mapped IPv6. */
  readonly network: ipaddr.IPv6;
  /** 0–128, in IPv6 bits. */
  readonly prefix: number;
}

declare const allowListBrand: unique symbol;

/** A parsed allow-list; build with parseAllowList, store via normaliseAllowList. */
export type AllowList = readonly IpRange[] & { readonly [allowListBrand]: true };

const PREFIX = /^(0|[1-9][0-9]{0,2})$/;
const MAPPED_PREFIX_BITS = 96;

/** The address as IPv6 (IPv4 mapped), or undefined when it is not a strict IPv4/IPv6 address. */
function parseAddress(text: string): { address: ipaddr.IPv6; bits: number } | undefined {
  try {
    if (ipaddr.IPv4.isValidFourPartDecimal(text)) {
      return { address: ipaddr.IPv4.parse(text).toIPv4MappedAddress(), bits: 32 };
    }
    if (!text.includes('%') && ipaddr.IPv6.isValid(text)) {
      return { address: ipaddr.IPv6.parse(text), bits: 128 };
    }
  } catch {
    // ipaddr.js validators and parsers disagree on a few edge forms: treat as invalid.
  }
  return undefined;
}

function networkOf(address: ipaddr.IPv6, prefix: number): ipaddr.IPv6 {
  const parts = address.parts.map((part, i) => {
    const keep = Math.min(16, Math.max(0, prefix - i * 16));
    return keep === 0 ? 0 : part & ((0xffff << (16 - keep)) & 0xffff);
  });
  return new ipaddr.IPv6(parts);
}

/** Whether one entry's text is an address or CIDR range the list takes (the schemas' `ip-or-cidr` format, schema-check.ts). */
export const isAllowListEntry = (text: string): boolean => parseEntry(text) !== undefined;

function parseEntry(text: string): IpRange | undefined {
  const slash = text.indexOf('/');
  const addressText = slash === -1 ? text : text.slice(0, slash);
  const prefixText = slash === -1 ? undefined : text.slice(slash + 1);
  const parsed = parseAddress(addressText);
  if (parsed === undefined) return undefined;
  let prefix = parsed.bits;
  if (prefixText !== undefined) {
    if (!PREFIX.test(prefixText)) return undefined;
    prefix = Number(prefixText);
    if (prefix > parsed.bits) return undefined;
  }
  const prefix128 = parsed.bits === 32 ? prefix + MAPPED_PREFIX_BITS : prefix;
  return { network: networkOf(parsed.address, prefix128), prefix: prefix128 };
}

function formatRange(range: IpRange): string {
  if (range.prefix >= MAPPED_PREFIX_BITS && range.network.isIPv4MappedAddress()) {
    const v4 = range.network.toIPv4Address().toString();
    const prefix = range.prefix - MAPPED_PREFIX_BITS;
    return prefix === 32 ? v4 : `${v4}/${prefix}`;
  }
  const v6 = range.network.toRFC5952String();
  return range.prefix === 128 ? v6 : `${v6}/${range.prefix}`;
}

export function parseAllowList(entries: unknown): Result<AllowList> {
  if (!Array.isArray(entries)) {
    return reject('invalidField', { detail: 'ipAllowList: must be an array of strings' });
  }
  const ranges: IpRange[] = [];
  const seen = new Set<string>();
  for (const entry of entries as unknown[]) {
    const range = typeof entry === 'string' ? parseEntry(entry) : undefined;
    if (range === undefined) {
      return reject('invalidField', { detail: `ipAllowList: "${echoText(entry)}" is not an IP address or CIDR` });
    }
    const canonical = formatRange(range);
    if (!seen.has(canonical)) {
      seen.add(canonical);
      ranges.push(range);
    }
  }
  return ok(ranges as readonly IpRange[] as AllowList);
}

/** True when the list is empty (no restriction) or `ip` is in one of its entries. */
export function isIpAllowed(list: AllowList, ip: string): boolean {
  if (list.length === 0) return true;
  // Clients never send a prefix; a zone id (`fe80::1%eth0`) is accepted and ignored.
  const percent = ip.indexOf('%');
  const client = parseAddress(percent === -1 ? ip : ip.slice(0, percent));
  if (client === undefined) return false;
  return list.some((range) => client.address.match(range.network, range.prefix));
}

/** Canonical text of each entry, for storage and display (see the header comment). */
export function normaliseAllowList(list: AllowList): string[] {
  return list.map(formatRange);
}
