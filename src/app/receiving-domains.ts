import { invalidField, parseSenderDomain } from '../domain/admin-input.ts';
import { parseAddress } from '../domain/email-address.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import type { DomainCheck } from '../domain/sender-domain.ts';
import {
  mxPointsAt, receivingRecord, splitAddress, type ReceivingRecord, type ReceivingRule, type RuleAction,
} from '../domain/receiving-domain.ts';
import { iso } from '../domain/wire-time.ts';
import {
  deleteReceivingDomain, findReceivingDomain, findReceivingDomainByName, insertReceivingDomain, listReceivingDomains,
  markReceivingDomainVerified, setReceivingRules, type ReceivingDomain,
} from '../store/receiving-domains.ts';
import type { AppDeps } from './deps.ts';
import { mailHostsOf } from './sender-domains.ts';
import { resolverFor } from './verify-sender-domain.ts';

// Receiving domains of an account (/v1/receiving-domains, docs/inbound-email.md): add
// one, publish its MX, verify it, set its rules, remove it. A name belongs to one
// account: a second claim, by anyone, is a conflict.

/** A rule as the wire writes it. */
export interface WireRule {
  readonly address: string;
  readonly action: RuleAction;
  readonly forward_to?: string;
}

export interface ReceivingDomainView {
  readonly id: string;
  readonly domain: string;
  readonly verified: boolean;
  readonly verified_at: string | null;
  readonly records: readonly ReceivingRecord[];
  readonly rules: readonly WireRule[];
  readonly created_at: string;
}

export interface ReceivingDomainVerification extends ReceivingDomainView {
  /** The MX look-up: found, pointing at herald (`ok`), or failed (`error`). */
  readonly checks: readonly DomainCheck[];
}

const wireRule = (rule: ReceivingRule): WireRule =>
  (rule.forwardTo === undefined ? { address: rule.address, action: rule.action } : { address: rule.address, action: rule.action, forward_to: rule.forwardTo });

function viewOf(deps: AppDeps, domain: ReceivingDomain): ReceivingDomainView {
  return {
    id: domain.id,
    domain: domain.domain,
    verified: domain.verifiedAt !== null,
    verified_at: domain.verifiedAt === null ? null : iso(domain.verifiedAt),
    records: [receivingRecord(domain.domain, mailHostsOf(deps).mailHost)],
    rules: domain.rules.map(wireRule),
    created_at: iso(domain.createdAt),
  };
}

/** POST /v1/receiving-domains `{domain}`: 201 with the MX to publish; 409 when any account has the name. */
export async function addReceivingDomain(deps: AppDeps, accountId: string, body: { readonly domain: string }): Promise<Result<ReceivingDomainView>> {
  const name = parseSenderDomain(body.domain);
  if (name === null) return invalidField('domain', 'must be a host name with a dot, e.g. example.com');
  const id = deps.newId();
  if (!(await insertReceivingDomain(deps.db, { id, accountId, domain: name, now: deps.clock() }))) return reject('conflict');
  const stored = await findReceivingDomain(deps.db, accountId, id);
  if (stored === undefined) throw new Error(`receiving domain ${name} vanished after insert`);
  return ok(viewOf(deps, stored));
}

export async function listReceivingDomainsOf(deps: AppDeps, accountId: string): Promise<{ data: ReceivingDomainView[] }> {
  return { data: (await listReceivingDomains(deps.db, accountId)).map((d) => viewOf(deps, d)) };
}

export async function getReceivingDomain(deps: AppDeps, accountId: string, id: string): Promise<Result<ReceivingDomainView>> {
  const found = await findReceivingDomain(deps.db, accountId, id);
  return found === undefined ? reject('notFound') : ok(viewOf(deps, found));
}

/**
 * POST /v1/receiving-domains/:id/verify: the domain's MX looked up with the house's DNS
 * servers; verified when one names herald's mail host. Sticky, as a sender domain's;
 * DNS trouble is reported in `checks`, never as a server error.
 */
export async function verifyReceivingDomain(deps: AppDeps, accountId: string, id: string): Promise<Result<ReceivingDomainVerification>> {
  const found = await findReceivingDomain(deps.db, accountId, id);
  if (found === undefined) return reject('notFound');
  const check = await mxCheck(deps, found.domain);
  if (found.verifiedAt === null && check.ok) await markReceivingDomainVerified(deps.db, found.id, deps.clock());
  const current = (await findReceivingDomain(deps.db, accountId, id)) ?? found;
  return ok({ ...viewOf(deps, current), checks: [check] });
}

async function mxCheck(deps: AppDeps, domain: string): Promise<DomainCheck> {
  try {
    const records = await resolverFor(deps).resolveMx(domain);
    return { record: domain, found: records.length > 0, ok: mxPointsAt(records.map((r) => r.exchange), mailHostsOf(deps).mailHost) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
    if (code === 'ENODATA' || code === 'ENOTFOUND') return { record: domain, found: false, ok: false };
    return { record: domain, found: false, ok: false, error: `DNS look-up failed (${code})` };
  }
}

/** PUT /v1/receiving-domains/:id/rules: the whole list replaced; the schema checked the shapes already. */
export async function setReceivingDomainRules(deps: AppDeps, accountId: string, id: string, rules: readonly WireRule[]): Promise<Result<ReceivingDomainView>> {
  const found = await findReceivingDomain(deps.db, accountId, id);
  if (found === undefined) return reject('notFound');
  const checked = checkRules(rules, found.domain);
  if (!checked.ok) return checked;
  await setReceivingRules(deps.db, accountId, id, checked.value, deps.clock());
  const current = await findReceivingDomain(deps.db, accountId, id);
  return current === undefined ? reject('notFound') : ok(viewOf(deps, current));
}

function checkRules(rules: readonly WireRule[], domain: string): Result<ReceivingRule[]> {
  const seen = new Set<string>();
  const checked: ReceivingRule[] = [];
  for (const [i, rule] of rules.entries()) {
    const address = rule.address.toLowerCase();
    if (seen.has(address)) return invalidField(`rules[${i}].address`, 'names an address an earlier rule names');
    seen.add(address);
    if (rule.action !== 'forward') {
      if (rule.forward_to !== undefined) return invalidField(`rules[${i}].forward_to`, 'is only for the forward action');
      checked.push({ address: rule.address, action: rule.action });
      continue;
    }
    const to = rule.forward_to === undefined ? null : parseAddress(rule.forward_to);
    if (to === null) return invalidField(`rules[${i}].forward_to`, 'must be an email address');
    // Mail forwarded to the domain itself would come back to this rule, billed each time round.
    if (splitAddress(to)?.domain === domain) return invalidField(`rules[${i}].forward_to`, 'must not be at the domain itself');
    checked.push({ address: rule.address, action: 'forward', forwardTo: to });
  }
  return ok(checked);
}

/** DELETE /v1/receiving-domains/:id: mail to it is refused from now on. */
export async function removeReceivingDomain(deps: AppDeps, accountId: string, id: string): Promise<Result<void>> {
  return (await deleteReceivingDomain(deps.db, accountId, id)) ? ok(undefined) : reject('notFound');
}

/** The CLI's `receiving-domains mark-verified DOMAIN`: the operator vouches for it without DNS. */
export async function markReceivingDomainVerifiedByName(deps: AppDeps, domain: string): Promise<Result<ReceivingDomainView>> {
  const name = domain.toLowerCase();
  const found = await findReceivingDomainByName(deps.db, name);
  if (found === undefined) return reject('notFound');
  await markReceivingDomainVerified(deps.db, found.id, deps.clock());
  const current = (await findReceivingDomainByName(deps.db, name)) ?? found;
  return ok(viewOf(deps, current));
}
