// Sender domains as DNS sees them: the records an account publishes for a domain it
// sends from, and the rules that read those records back. Pure: key generation and
// look-ups happen in app/.
import { isIP } from 'node:net';
import { fieldsOf, invalidField, parseSenderDomain } from './admin-input.ts';
import { ok, type Result } from './result.ts';

/**
 * What each record is for: `verification` proves control of the domain, `dkim`
 * carries the public key herald signs with, `spf` is advisory (herald's envelope
 * sender is on the bounce domain, so DMARC aligns through DKIM), `bounces` is the
 * bounce domain's MX, published once by the operator rather than per account.
 */
export type DomainRecordPurpose = 'verification' | 'dkim' | 'spf' | 'dmarc' | 'bounces';

export interface DomainRecord {
  readonly type: 'TXT' | 'MX' | 'A' | 'AAAA';
  readonly name: string;
  /** The record's whole text; a DNS host splits a TXT value over 255 octets into strings itself. */
  readonly value: string;
  readonly purpose: DomainRecordPurpose;
}

/**
 * Why a record herald would like cannot be suggested as it is: the public URL (or the
 * bounce domain) is an IP address, which SPF names with ip4:/ip6: and an MX cannot name.
 */
export type DomainNoteCode = 'bounce-domain-is-ip' | 'mail-host-is-ip';

export interface DomainNote {
  readonly code: DomainNoteCode;
  /** The IP address in question, so a page can say it in its own words. */
  readonly address: string;
  readonly text: string;
}

/** What a verification found at one record: absent, present but wrong, or the look-up failed (`error`). */
export interface DomainCheck {
  readonly record: string;
  readonly found: boolean;
  readonly ok: boolean;
  readonly error?: string;
}

/** A sender domain's check: which record it is, and for SPF and DMARC (advisory) the record found. */
export interface SenderDomainCheck extends DomainCheck {
  readonly purpose: 'verification' | 'dkim' | 'spf' | 'dmarc';
  readonly value?: string;
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

/** A host as it appears in a URL, without the brackets of an IPv6 literal. */
export const bareHost = (hostname: string): string => hostname.replace(/^\[(.*)\]$/, '$1');

/** The SPF mechanism that allows herald's mail: `include:` of a host name, `ip4:`/`ip6:` of an address (RFC 7208 §5). */
export function spfMechanism(host: string): string {
  const family = isIP(host);
  return family === 4 ? `ip4:${host}` : family === 6 ? `ip6:${host}` : `include:${host}`;
}

export const dmarcRecordName = (domain: string): string => `_dmarc.${domain}`;

/** Every record the account publishes (and the operator's bounce records), in the order to publish them. */
export function domainRecords(keys: DomainKeys, hosts: MailHosts): DomainRecord[] {
  const bounceDomain = bareHost(hosts.bounceDomain);
  const mailHost = bareHost(hosts.mailHost);
  return [
    { type: 'TXT', name: verificationRecordName(keys.domain), value: `${VERIFICATION_PREFIX}${keys.verificationToken}`, purpose: 'verification' },
    { type: 'TXT', name: dkimRecordName(keys.selector, keys.domain), value: `v=DKIM1; k=rsa; p=${keys.publicKey}`, purpose: 'dkim' },
    { type: 'TXT', name: keys.domain, value: `v=spf1 ${spfMechanism(bounceDomain)} ~all`, purpose: 'spf' },
    // p=none only asks for reports: a stricter policy is the domain owner's choice once the reports look right.
    { type: 'TXT', name: dmarcRecordName(keys.domain), value: `v=DMARC1; p=none; rua=mailto:dmarc-reports@${keys.domain}`, purpose: 'dmarc' },
    ...bounceRecords(bounceDomain, mailHost),
  ];
}

/**
 * The bounce domain's MX: an address cannot own records (bounce domain an IP: none), and
 * an MX names a host, never an address (RFC 5321 §5.1), so an IP mail host is named by the
 * bounce domain itself with an A or AAAA record.
 */
function bounceRecords(bounceDomain: string, mailHost: string): DomainRecord[] {
  if (isIP(bounceDomain) !== 0) return [];
  const family = isIP(mailHost);
  if (family === 0) return [{ type: 'MX', name: bounceDomain, value: `10 ${mailHost}`, purpose: 'bounces' }];
  return [
    { type: 'MX', name: bounceDomain, value: `10 ${bounceDomain}`, purpose: 'bounces' },
    { type: family === 4 ? 'A' : 'AAAA', name: bounceDomain, value: mailHost, purpose: 'bounces' },
  ];
}

/** What the records above could not say: the public URL or the bounce domain is an IP address. */
export function domainNotes(hosts: MailHosts): DomainNote[] {
  const bounceDomain = bareHost(hosts.bounceDomain);
  const mailHost = bareHost(hosts.mailHost);
  if (isIP(bounceDomain) !== 0) {
    return [{
      code: 'bounce-domain-is-ip',
      address: bounceDomain,
      text: `The bounce domain is the IP address ${bounceDomain}, which can have no MX record: SPF names it with ${spfMechanism(bounceDomain).split(':')[0]}:, `
        + 'and bounces reach herald only if the operator sets HERALD_BOUNCE_DOMAIN (or HERALD_PUBLIC_URL) to a host name whose A or AAAA record is this address.',
    }];
  }
  if (isIP(mailHost) !== 0) {
    return [{
      code: 'mail-host-is-ip',
      address: mailHost,
      text: `HERALD_PUBLIC_URL names the IP address ${mailHost}, which an MX record cannot name: the bounce domain ${bounceDomain} points to itself and gets an ${isIP(mailHost) === 4 ? 'A' : 'AAAA'} record with the address.`,
    }];
  }
  return [];
}

/** The SPF records among a name's TXT records (RFC 7208 §4.5: exactly one may exist). */
export function spfRecordsOf(records: readonly (readonly string[])[]): string[] {
  return records.map(joinTxt).filter((text) => /^v=spf1(\s|$)/i.test(text.trim()));
}

/** True when the one SPF record names the mechanism (any qualifier but `-`/`~`/`?` fail: only `+` or none allows). */
export function spfAllows(record: string, mechanism: string): boolean {
  return record.trim().split(/\s+/).slice(1).some((term) => term.replace(/^\+/, '').toLowerCase() === mechanism.toLowerCase());
}

/** The DMARC records among `_dmarc.<domain>`'s TXT records. */
export function dmarcRecordsOf(records: readonly (readonly string[])[]): string[] {
  return records.map(joinTxt).filter((text) => /^v=DMARC1\s*(;|$)/i.test(text.trim()));
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
