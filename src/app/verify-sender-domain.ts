import { Resolver } from 'node:dns/promises';
import { ok, reject, type Result } from '../domain/result.ts';
import {
  dkimRecordName, hasDkimKey, hasVerificationToken, verificationRecordName, type DomainCheck,
} from '../domain/sender-domain.ts';
import { findSenderDomain, markSenderDomainVerified, type SenderDomain } from '../store/sender-domains.ts';
import type { AppDeps } from './deps.ts';
import { detailsOf, findOwnDomain, type SenderDomainDetails } from './sender-domains.ts';

export interface SenderDomainVerification extends SenderDomainDetails {
  /** The records that decide verification: the `_herald` token, then the DKIM key. */
  readonly checks: readonly DomainCheck[];
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

async function check(resolver: Resolver, name: string, matches: (records: string[][]) => boolean): Promise<DomainCheck> {
  try {
    const records = await resolver.resolveTxt(name);
    return { record: name, found: records.length > 0, ok: matches(records) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
    if (ABSENT.has(code)) return { record: name, found: false, ok: false };
    return { record: name, found: false, ok: false, error: `DNS look-up failed (${code})` };
  }
}

async function verify(deps: AppDeps, domain: SenderDomain): Promise<SenderDomainVerification> {
  const { dkimSelector, dkimPublicKey, verificationToken } = domain;
  if (dkimSelector === null || dkimPublicKey === null || verificationToken === null) throw new Error(`sender domain ${domain.id} has no keys`);
  const resolver = resolverFor(deps);
  const checks = await Promise.all([
    check(resolver, verificationRecordName(domain.domain), (records) => hasVerificationToken(records, verificationToken)),
    check(resolver, dkimRecordName(dkimSelector, domain.domain), (records) => hasDkimKey(records, dkimPublicKey)),
  ]);
  let current = domain;
  // Verification is sticky: a later failed check (a DNS outage, a zone edit) does not
  // stop mail that already flows; the operator removes the domain to revoke it.
  if (!domain.verified && checks.every((c) => c.ok)) {
    await markSenderDomainVerified(deps.db, domain.id, deps.clock());
    current = (await findSenderDomain(deps.db, domain.accountId, domain.domain)) ?? domain;
  }
  return { ...detailsOf(deps, current), checks };
}

/**
 * POST /v1/domains/:domain/verify (and the admin twin): looks the `_herald` token and the DKIM key up in
 * DNS and marks the domain verified when both match. DNS trouble is reported in the
 * checks (200, still unverified), never as a server error.
 */
export async function verifySenderDomain(deps: AppDeps, accountId: string, domain: string): Promise<Result<SenderDomainVerification>> {
  const found = await findOwnDomain(deps, accountId, domain);
  return found ? ok(await verify(deps, found)) : reject('notFound');
}
