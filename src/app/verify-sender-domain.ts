import { Resolver } from 'node:dns/promises';
import { ok, reject, type Result } from '../domain/result.ts';
import {
  bareHost, dkimRecordName, dmarcRecordName, dmarcRecordsOf, hasDkimKey, hasVerificationToken, spfAllows, spfMechanism, spfRecordsOf,
  verificationRecordName, type SenderDomainCheck,
} from '../domain/sender-domain.ts';
import { findSenderDomain, markSenderDomainVerified, type SenderDomain } from '../store/sender-domains.ts';
import type { AppDeps } from './deps.ts';
import { detailsOf, findOwnDomain, type SenderDomainDetails } from './sender-domains.ts';

export interface SenderDomainVerification extends SenderDomainDetails {
  /** The records that decide verification (the `_herald` token, the DKIM key), then SPF and DMARC, advisory. */
  readonly checks: readonly SenderDomainCheck[];
}

// A verification is an HTTP request: against a server that never answers, two tries
// from 2 s give up after ~7 s (measured; c-ares doubles the time-out per try) where
// Node's defaults take ~31 s. Both look-ups run at once, so that is the whole wait.
const LOOKUP_TIMEOUT_MS = 2_000;
const LOOKUP_TRIES = 2;

// "This name has no TXT record" is an answer (the record is missing), not a failure.
const ABSENT = new Set(['ENODATA', 'ENOTFOUND']);

/** A resolver asking the house's DNS servers (HERALD_DNS_SERVERS), bounded as above; receiving domains' MX check uses it too. */
export function resolverFor(deps: Pick<AppDeps, 'dnsServers'>): Resolver {
  const resolver = new Resolver({ timeout: LOOKUP_TIMEOUT_MS, tries: LOOKUP_TRIES });
  if (deps.dnsServers.length > 0) resolver.setServers([...deps.dnsServers]);
  return resolver;
}

type Purpose = SenderDomainCheck['purpose'];

/** Looks a name's TXT records up; `judge` says whether they are right and, for advisory records, what was found. */
async function check(
  resolver: Resolver, name: string, purpose: Purpose, judge: (records: string[][]) => { ok: boolean; value?: string },
): Promise<SenderDomainCheck> {
  try {
    const records = await resolver.resolveTxt(name);
    return { record: name, purpose, found: records.length > 0, ...judge(records) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
    if (ABSENT.has(code)) return { record: name, purpose, found: false, ok: false };
    return { record: name, purpose, found: false, ok: false, error: `DNS look-up failed (${code})` };
  }
}

/** SPF: exactly one `v=spf1` record (two are a permanent error, RFC 7208 §4.5) naming herald's mechanism. */
function judgeSpf(mechanism: string) {
  return (records: string[][]): { ok: boolean; value?: string } => {
    const spf = spfRecordsOf(records);
    if (spf.length === 0) return { ok: false };
    return { ok: spf.length === 1 && spfAllows(spf[0] ?? '', mechanism), value: spf.join(' | ') };
  };
}

/** DMARC: exactly one `v=DMARC1` record, whatever its policy (the policy is the owner's choice). */
function judgeDmarc(records: string[][]): { ok: boolean; value?: string } {
  const dmarc = dmarcRecordsOf(records);
  return dmarc.length === 0 ? { ok: false } : { ok: dmarc.length === 1, value: dmarc.join(' | ') };
}

async function verify(deps: AppDeps, domain: SenderDomain): Promise<SenderDomainVerification> {
  const { dkimSelector, dkimPublicKey, verificationToken } = domain;
  if (dkimSelector === null || dkimPublicKey === null || verificationToken === null) throw new Error(`sender domain ${domain.id} has no keys`);
  const resolver = resolverFor(deps);
  const checks = await Promise.all([
    check(resolver, verificationRecordName(domain.domain), 'verification', (records) => ({ ok: hasVerificationToken(records, verificationToken) })),
    check(resolver, dkimRecordName(dkimSelector, domain.domain), 'dkim', (records) => ({ ok: hasDkimKey(records, dkimPublicKey) })),
    check(resolver, domain.domain, 'spf', judgeSpf(spfMechanism(bareHost(deps.bounceDomain)))),
    check(resolver, dmarcRecordName(domain.domain), 'dmarc', judgeDmarc),
  ]);
  let current = domain;
  // Verification is sticky: a later failed check (a DNS outage, a zone edit) does not
  // stop mail that already flows; the operator removes the domain to revoke it.
  if (!domain.verified && checks.filter((c) => c.purpose === 'verification' || c.purpose === 'dkim').every((c) => c.ok)) {
    await markSenderDomainVerified(deps.db, domain.id, deps.clock());
    current = (await findSenderDomain(deps.db, domain.accountId, domain.domain)) ?? domain;
  }
  return { ...detailsOf(deps, current), checks };
}

/**
 * POST /v1/domains/:domain/verify (and the admin twin): looks the `_herald` token and the DKIM key up in
 * DNS and marks the domain verified when both match; SPF and DMARC are looked up too and reported, advisory. DNS trouble is reported in the
 * checks (200, still unverified), never as a server error.
 */
export async function verifySenderDomain(deps: AppDeps, accountId: string, domain: string): Promise<Result<SenderDomainVerification>> {
  const found = await findOwnDomain(deps, accountId, domain);
  return found ? ok(await verify(deps, found)) : reject('notFound');
}
