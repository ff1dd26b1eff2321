import { parseNewSenderDomain } from '../domain/admin-input.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import { findAccount } from '../store/accounts.ts';
import { findSenderDomain, insertSenderDomain } from '../store/sender-domains.ts';
import { iso } from './account-view.ts';
import type { AppDeps } from './deps.ts';

export interface SenderDomainView {
  readonly domain: string;
  readonly verified: boolean;
  readonly createdAt: string;
}

/**
 * POST /admin/v1/accounts/:id/domains: a domain the account may send email from.
 * `verified: true` marks it by hand until DNS verification exists; a domain the
 * account already has is a conflict, whatever its state.
 */
export async function addSenderDomain(deps: AppDeps, accountId: string, body: unknown): Promise<Result<SenderDomainView>> {
  const parsed = parseNewSenderDomain(body);
  if (!parsed.ok) return parsed;
  const { domain, verified } = parsed.value;
  if (!(await findAccount(deps.db, accountId))) return reject('notFound');
  if (await findSenderDomain(deps.db, accountId, domain)) return reject('conflict');

  const createdAt = deps.clock();
  try {
    await insertSenderDomain(deps.db, { id: deps.newId(), accountId, domain, verified, createdAt });
  } catch (error) {
    // Two requests raced past the check above: the unique constraint decided.
    if (await findSenderDomain(deps.db, accountId, domain)) return reject('conflict');
    throw error;
  }
  return ok({ domain, verified, createdAt: iso(createdAt) });
}
