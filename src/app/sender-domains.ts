import { domainNotes, domainRecords, type DomainNote, type DomainRecord, type MailHosts } from '../domain/sender-domain.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import {
  campaignsSendingFrom, deleteSenderDomain, findSenderDomain, listSenderDomains, setDkimKeysIfMissing, setVerificationTokenIfMissing, type SenderDomain,
} from '../store/sender-domains.ts';
import { iso } from '../domain/wire-time.ts';
import type { AppDeps } from './deps.ts';
import { generateDkimKeys, newVerificationToken } from './dkim-keys.ts';

/** A sender domain as the API shows it: its state and the DNS records to publish. Never the private key. */
export interface SenderDomainDetails {
  readonly domain: string;
  readonly verified: boolean;
  readonly verifiedAt: string | null;
  readonly records: readonly DomainRecord[];
  /** What the records could not say (an IP public URL or bounce domain), and what to do instead. */
  readonly notes: readonly DomainNote[];
}

/** The bounce domain (HERALD_BOUNCE_DOMAIN, else the public URL's host) and the host the bounce MX names: the host of HERALD_PUBLIC_URL. */
export function mailHostsOf(deps: AppDeps): MailHosts {
  return { bounceDomain: deps.bounceDomain, mailHost: new URL(deps.publicUrl).hostname };
}

/**
 * A domain row with a key pair and a verification token. Rows made before DKIM
 * existed get theirs on first use; the conditional updates keep whichever a
 * concurrent request stored first.
 */
export async function provisioned(deps: AppDeps, domain: SenderDomain): Promise<SenderDomain> {
  if (domain.dkimSelector !== null && domain.dkimPublicKey !== null && domain.verificationToken !== null) return domain;
  if (domain.dkimSelector === null) await setDkimKeysIfMissing(deps.db, domain.id, await generateDkimKeys(deps.clock()));
  if (domain.verificationToken === null) await setVerificationTokenIfMissing(deps.db, domain.id, newVerificationToken());
  return (await findSenderDomain(deps.db, domain.accountId, domain.domain)) ?? domain;
}

export function detailsOf(deps: AppDeps, domain: SenderDomain): SenderDomainDetails {
  const { dkimSelector, dkimPublicKey, verificationToken } = domain;
  if (dkimSelector === null || dkimPublicKey === null || verificationToken === null) throw new Error(`sender domain ${domain.id} has no keys`);
  return {
    domain: domain.domain,
    verified: domain.verified,
    verifiedAt: domain.verifiedAt === null ? null : iso(domain.verifiedAt),
    records: domainRecords({ domain: domain.domain, selector: dkimSelector, publicKey: dkimPublicKey, verificationToken }, mailHostsOf(deps)),
    notes: domainNotes(mailHostsOf(deps)),
  };
}

/** The account's domain (the name is matched lower-cased), provisioned; undefined when it has no such domain. */
export async function findOwnDomain(deps: AppDeps, accountId: string, domain: string): Promise<SenderDomain | undefined> {
  const found = await findSenderDomain(deps.db, accountId, domain.toLowerCase());
  return found && provisioned(deps, found);
}

/** GET /v1/domains/:domain and GET /admin/v1/accounts/:id/domains/:domain. */
export async function getSenderDomain(deps: AppDeps, accountId: string, domain: string): Promise<Result<SenderDomainDetails>> {
  const found = await findOwnDomain(deps, accountId, domain);
  return found ? ok(detailsOf(deps, found)) : reject('notFound');
}

/** GET /v1/domains: every domain of the account with its records, by name. */
export async function listSenderDomainsOf(deps: AppDeps, accountId: string): Promise<{ domains: SenderDomainDetails[] }> {
  const domains = await listSenderDomains(deps.db, accountId);
  const ready = await Promise.all(domains.map((d) => provisioned(deps, d)));
  return { domains: ready.map((d) => detailsOf(deps, d)) };
}

/**
 * DELETE /v1/domains/:domain: refused (409, naming them) while a scheduled, running or
 * paused campaign sends from it, since its messages would be refused half-way.
 */
export async function removeSenderDomain(deps: AppDeps, accountId: string, domain: string): Promise<Result<null>> {
  const name = domain.toLowerCase();
  return deps.commit.run(async (tx) => {
    if ((await findSenderDomain(tx, accountId, name)) === undefined) return reject('notFound');
    const using = await campaignsSendingFrom(tx, accountId, name);
    if (using.length > 0) return reject('domainInUse', { detail: `used by ${using.map((c) => `campaign ${c.id} (${c.name})`).join(', ')}` });
    await deleteSenderDomain(tx, accountId, name);
    return ok(null);
  });
}
