import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../domain/account.ts';
import { isIpAllowed, parseAllowList, type AllowList } from '../../domain/ip-allow-list.ts';
import { reportUnexpected, type UnexpectedErrorCounter } from '../failed-request.ts';
import { refuseBeforeBody } from '../wire-errors.ts';
import { rateLimitHeaders, type AccountRateLimiter } from './rate-limit.ts';

// What every /v1 caller passes once its account is known, whether it came with a key
// or a session: the account's IP allow-list, then its rate limit.

// Allow-lists are stored as text; parsing one is cheap but not free, and the same
// few lists are checked on every request.
const allowListCache = new Map<string, AllowList>();
function allowListOf(account: Account): AllowList {
  const key = JSON.stringify(account.ipAllowList);
  let list = allowListCache.get(key);
  if (!list) {
    const parsed = parseAllowList(account.ipAllowList);
    // Stored lists were validated on the way in; an unreadable one must not open the door.
    if (!parsed.ok) throw new Error(`account ${account.id} has an invalid stored ipAllowList`);
    list = parsed.value;
    if (allowListCache.size > 1000) allowListCache.clear();
    allowListCache.set(key, list);
  }
  return list;
}

/** True when the request may go on; otherwise the refusal has been sent (the connection closes after it). */
export async function admitAccount(
  request: FastifyRequest, reply: FastifyReply, account: Account, deps: { rateLimiter: AccountRateLimiter; metrics: UnexpectedErrorCounter },
): Promise<boolean> {
  let allowed: boolean;
  try {
    allowed = isIpAllowed(allowListOf(account), request.ip);
  } catch (error) {
    reportUnexpected(request, deps.metrics, error, 'allow-list check failed');
    refuseBeforeBody(reply, { code: 'authInternal' });
    return false;
  }
  if (!allowed) {
    refuseBeforeBody(reply, { code: 'ipNotAllowed' });
    return false;
  }
  const decision = await deps.rateLimiter.consume(account.id, account.rateLimitPerSecond);
  // Redis out and HERALD_REDIS_FAILURE=closed: no request goes uncounted.
  if (decision === 'unavailable') {
    refuseBeforeBody(reply.header('retry-after', '1'), { code: 'storeUnavailable' });
    return false;
  }
  reply.headers(rateLimitHeaders(decision));
  if (!decision.allowed) {
    refuseBeforeBody(reply, { code: 'rateLimited' });
    return false;
  }
  return true;
}
