import { parseNewSenderDomain, type NewSenderDomainInput } from '../domain/admin-input.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import { parseAccountSenderDomain } from '../domain/sender-domain.ts';
import { findAccount } from '../store/accounts.ts';
import { findSenderDomain, insertSenderDomain, type SenderDomain } from '../store/sender-domains.ts';
import { iso } from '../domain/wire-time.ts';
import type { AppDeps } from './deps.ts';
import { generateDkimKeys, newVerificationToken } from './dkim-keys.ts';
import { detailsOf, type SenderDomainDetails } from './sender-domains.ts';

/** What the CLI prints for an added domain. */
export interface SenderDomainView {
  readonly domain: string;
  readonly verified: boolean;
  readonly createdAt: string;
}

/**
 * Stores a new domain of the account with a fresh DKIM key pair and verification
 * token. `verified` (the operator's by-hand verification) sets verified_at now. A
 * domain the account already has is a conflict, whatever its state.
 */
async function insertDomain(deps: AppDeps, accountId: string, input: NewSenderDomainInput): Promise<Result<SenderDomain>> {
  const { domain, verified } = input;
  if (!(await findAccount(deps.db, accountId))) return reject('notFound');
  if (await findSenderDomain(deps.db, accountId, domain)) return reject('conflict');

  const createdAt = deps.clock();
  const dkim = await generateDkimKeys(createdAt);
  const verificationToken = newVerificationToken();
  try {
    await insertSenderDomain(deps.db, {
      id: deps.newId(), accountId, domain, verified, createdAt, verifiedAt: verified ? createdAt : null, dkim, verificationToken,
    });
  } catch (error) {
    // Two requests raced past the check above: the unique constraint decided.
    if (await findSenderDomain(deps.db, accountId, domain)) return reject('conflict');
    throw error;
  }
  const stored = await findSenderDomain(deps.db, accountId, domain);
  if (!stored) throw new Error(`sender domain ${domain} vanished after insert`);
  return ok(stored);
}

/** The CLI's `domains add` and `accounts create --domain`: the domain, its state and when it was added. */
export async function addSenderDomain(deps: AppDeps, accountId: string, body: unknown): Promise<Result<SenderDomainView>> {
  const parsed = parseNewSenderDomain(body);
  if (!parsed.ok) return parsed;
  const added = await insertDomain(deps, accountId, parsed.value);
  if (!added.ok) return added;
  const { domain, verified, createdAt } = added.value;
  return ok({ domain, verified, createdAt: iso(createdAt) });
}

/** POST /admin/v1/accounts/:id/domains `{domain, verified?}`: the domain with the records to publish. */
export async function addSenderDomainAsOperator(deps: AppDeps, accountId: string, input: NewSenderDomainInput): Promise<Result<SenderDomainDetails>> {
  const added = await insertDomain(deps, accountId, input);
  return added.ok ? ok(detailsOf(deps, added.value)) : added;
}

/** POST /v1/domains `{domain}`: an account adds a domain for itself, unverified until DNS says otherwise. */
export async function addOwnSenderDomain(deps: AppDeps, accountId: string, body: unknown): Promise<Result<SenderDomainDetails>> {
  const parsed = parseAccountSenderDomain(body);
  if (!parsed.ok) return parsed;
  const added = await insertDomain(deps, accountId, { domain: parsed.value.domain, verified: false });
  return added.ok ? ok(detailsOf(deps, added.value)) : added;
}
