// Sender domains as DNS sees them: the records an account publishes for a domain it
// sends from, and the rules that read those records back. Pure: key generation and
// look-ups happen in app/.
import { fieldsOf, invalidField, parseSenderDomain } from './admin-input.ts';
import { ok, type Result } from './result.ts';

/**
 * What each record is for: `verification` proves control of the domain, `dkim`
 * carries the public key herald signs with, `spf` is advisory (herald's envelope
 * sender is on the bounce domain, so DMARC aligns through DKIM), `bounces` is the
 * bounce domain's MX, published once by the operator rather than per account.
 */
export type DomainRecordPurpose = 'verification' | 'dkim' | 'spf' | 'bounces';

export interface DomainRecord {
  readonly type: 'TXT' | 'MX';
  readonly name: string;
  /** The record's whole text; a DNS host splits a TXT value over 255 octets into strings itself. */
  readonly value: string;
  readonly purpose: DomainRecordPurpose;
}

/** What a verification found at one record: absent, present but wrong, or the look-up failed (`error`). */
export interface DomainCheck {
  readonly record: string;
  readonly found: boolean;
  readonly ok: boolean;
  readonly error?: string;
}

/** The DNS facts of one sender domain that its records are built from. */
export interface DomainKeys {
  readonly domain: string;
  readonly selector: string;
  /** base64 DER SubjectPublicKeyInfo, the DKIM `p=` tag. */
  readonly publicKey: string;
  readonly verificationToken: string;
}

/** Where herald receives bounces and which host its SPF include names. */
export interface MailHosts {
  readonly bounceDomain: string;
  readonly mailHost: string;
}

export const DKIM_KEY_BITS = 2048;
export const VERIFICATION_PREFIX = 'herald-verification=';

/**
 * `herald<yyyymm>` of the month the key was made (UTC): readable in a DNS zone, and
 * a rotated key next month gets a new selector so the old record can stay published
 * until mail signed with it has been delivered.
 */
export function dkimSelectorAt(epochMs: number): string {
  const at = new Date(epochMs);
  return `herald${at.getUTCFullYear()}${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The start (epoch ms, UTC) of the month a `herald<yyyymm>` selector names; undefined for another selector. */
export function dkimSelectorMonth(selector: string): number | undefined {
  const match = /^herald(\d{4})(\d{2})$/.exec(selector);
  return match === null ? undefined : Date.UTC(Number(match[1]), Number(match[2]) - 1, 1);
}

export const verificationRecordName = (domain: string): string => `_herald.${domain}`;
export const dkimRecordName = (selector: string, domain: string): string => `${selector}._domainkey.${domain}`;

/** Every record the account publishes (and the operator's bounce MX), in the order to publish them. */
export function domainRecords(keys: DomainKeys, hosts: MailHosts): DomainRecord[] {
  return [
    { type: 'TXT', name: verificationRecordName(keys.domain), value: `${VERIFICATION_PREFIX}${keys.verificationToken}`, purpose: 'verification' },
    { type: 'TXT', name: dkimRecordName(keys.selector, keys.domain), value: `v=DKIM1; k=rsa; p=${keys.publicKey}`, purpose: 'dkim' },
    { type: 'TXT', name: keys.domain, value: `v=spf1 include:${hosts.bounceDomain} ~all`, purpose: 'spf' },
    { type: 'MX', name: hosts.bounceDomain, value: `10 ${hosts.mailHost}`, purpose: 'bounces' },
  ];
}

/** A TXT record arrives as strings of at most 255 octets; its text is their concatenation (RFC 7208 §3.3, RFC 6376 §3.6.2.2). */
export const joinTxt = (chunks: readonly string[]): string => chunks.join('');

const withoutSpace = (text: string): string => text.replace(/\s+/g, '');

/** True when one of the TXT records at `_herald.<domain>` is `herald-verification=<token>`. */
export function hasVerificationToken(records: readonly (readonly string[])[], token: string): boolean {
  return records.some((chunks) => withoutSpace(joinTxt(chunks)) === `${VERIFICATION_PREFIX}${token}`);
}

/** The `p=` tag of a DKIM key record, whitespace removed (RFC 6376 allows folding inside it); undefined when absent. */
export function dkimPublicKeyOf(record: string): string | undefined {
  for (const tag of record.split(';')) {
    const at = tag.indexOf('=');
    if (at !== -1 && tag.slice(0, at).trim() === 'p') return withoutSpace(tag.slice(at + 1));
  }
  return undefined;
}

/** True when one of the TXT records at the selector carries exactly this public key. */
export function hasDkimKey(records: readonly (readonly string[])[], publicKey: string): boolean {
  return records.some((chunks) => dkimPublicKeyOf(joinTxt(chunks)) === withoutSpace(publicKey));
}

/**
 * POST /v1/domains: an account adds a domain for itself. Only `domain`: marking it
 * verified by hand is the operator's privilege, so `verified` is an unknown field here.
 */
export function parseAccountSenderDomain(body: unknown): Result<{ domain: string }> {
  const fields = fieldsOf(body, ['domain']);
  if (!fields.ok) return fields;
  const { domain } = fields.value;
  if (domain === undefined) return invalidField('domain', 'is required');
  const parsed = parseSenderDomain(domain);
  return parsed === null ? invalidField('domain', 'must be a host name with a dot, e.g. example.com') : ok({ domain: parsed });
}
