import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../domain/account.ts';
import type { Metrics } from '../../metrics/registry.ts';
import { allowListAdmits } from '../../app/account-allow-list.ts';
import { reportUnexpected, type UnexpectedErrorCounter } from '../failed-request.ts';
import { refuseBeforeBody, withRetryAfter } from '../wire-errors.ts';
import { rateLimitHeaders, type AccountRateLimiter } from './rate-limit.ts';

// What every /v1 caller passes once its account is known, whether it came with a key
// or a session: the account's IP allow-list (for a session only when the account says
// it binds sessions too, allowListAppliesTo `all`), then a rate limit. A key is held to the
// account's rate (the interface's, 2 per second by default); a signed-in user to their
// own allowance (HERALD_SESSION_RATE_LIMIT), since one page of the web application asks
// several things at once and browsing must neither be refused by the account's API
// rate nor use up what the account's integrations may send.

/** Whose allowance a request draws on: the account's (an API key) or one user's (a session). */
export type RateAllowance =
  | { readonly kind: 'account' }
  | { readonly kind: 'user'; readonly userId: string; readonly perSecond: number };

/** True when the request may go on; otherwise the refusal has been sent (the connection closes after it). */
export async function admitAccount(
  request: FastifyRequest, reply: FastifyReply, account: Account, deps: { rateLimiter: AccountRateLimiter; metrics: UnexpectedErrorCounter & Pick<Metrics, 'storeUnavailable'> },
  allowance: RateAllowance = { kind: 'account' },
): Promise<boolean> {
  let allowed: boolean;
  try {
    const bound = allowance.kind === 'account' || account.allowListAppliesTo === 'all';
    allowed = !bound || allowListAdmits(account, request.ip);
  } catch (error) {
    reportUnexpected(request, deps.metrics, error, 'allow-list check failed');
    refuseBeforeBody(reply, { code: 'authInternal' });
    return false;
  }
  if (!allowed) {
    refuseBeforeBody(reply, { code: 'ipNotAllowed' });
    return false;
  }
  // A user's counter is keyed apart from every account id (uuids), in the same limiter,
  // so it is shared through Redis by every API process like the account's.
  const decision = allowance.kind === 'account'
    ? await deps.rateLimiter.consume(account.id, account.rateLimitPerSecond)
    : await deps.rateLimiter.consume(`user:${allowance.userId}`, allowance.perSecond);
  // Redis out and HERALD_REDIS_FAILURE=closed: no request goes uncounted.
  if (decision === 'unavailable') {
    deps.metrics.storeUnavailable('redis');
    refuseBeforeBody(withRetryAfter(reply), { code: 'storeUnavailable' });
    return false;
  }
  reply.headers(rateLimitHeaders(decision));
  if (!decision.allowed) {
    refuseBeforeBody(reply, { code: 'rateLimited' });
    return false;
  }
  return true;
}
