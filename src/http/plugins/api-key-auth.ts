import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticateApiKey, noteKeyUse, type KeyDeps } from '../../app/api-keys.ts';
import type { Account } from '../../domain/account.ts';
import { isIpAllowed, parseAllowList, type AllowList } from '../../domain/ip-allow-list.ts';
import { reportUnexpected } from '../failed-request.ts';
import { refuseBeforeBody } from '../wire-errors.ts';
import { rateLimitHeaders, type AccountRateLimiter } from './rate-limit.ts';

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

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

/**
 * The spec's authentication layer, as an onRequest hook (before the body is read):
 * key present → key valid → caller's IP allowed → within the account's rate. It sets
 * `request.caller`; routeAccessHook, next, checks the route's scope. Every refusal
 * closes the connection (refuseBeforeBody).
 */
export function apiKeyHook(deps: { keys: KeyDeps; rateLimiter: AccountRateLimiter }) {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '' || /^Bearer\s*$/i.test(header.trim())) {
      return void refuseBeforeBody(reply, { code: 'noApiKey' });
    }
    const token = BEARER.exec(header)?.[1];
    if (token === undefined) return void refuseBeforeBody(reply, { code: 'invalidApiKey' });

    let authentication;
    try {
      authentication = await authenticateApiKey(deps.keys, token);
    } catch (error) {
      reportUnexpected(request, deps.keys.metrics, error, 'key store failed during authentication');
      return void refuseBeforeBody(reply, { code: 'authInternal' });
    }
    if (authentication.kind === 'invalid') return void refuseBeforeBody(reply, { code: 'invalidApiKey' });
    const { account, key } = authentication;

    let allowed: boolean;
    try {
      allowed = isIpAllowed(allowListOf(account), request.ip);
    } catch (error) {
      reportUnexpected(request, deps.keys.metrics, error, 'allow-list check failed');
      return void refuseBeforeBody(reply, { code: 'authInternal' });
    }
    if (!allowed) return void refuseBeforeBody(reply, { code: 'ipNotAllowed' });

    const decision = await deps.rateLimiter.consume(account.id, account.rateLimitPerSecond);
    // Redis out and HERALD_REDIS_FAILURE=closed: no request goes uncounted.
    if (decision === 'unavailable') return void refuseBeforeBody(reply.header('retry-after', '1'), { code: 'storeUnavailable' });
    reply.headers(rateLimitHeaders(decision));
    if (!decision.allowed) return void refuseBeforeBody(reply, { code: 'rateLimited' });

    try {
      await noteKeyUse(deps.keys, key.id, request.ip);
    } catch (error) {
      // The last-use column is information for people; a request is not refused over it.
      request.log.error({ err: error }, 'recording the key\'s last use failed');
    }
    request.caller = { account, principal: { kind: 'key', key } };
  };
}
