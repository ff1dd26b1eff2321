import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticateApiKey, type KeyDeps } from '../../app/api-keys.ts';
import type { Account, Scope } from '../../domain/account.ts';
import { isIpAllowed, parseAllowList, type AllowList } from '../../domain/ip-allow-list.ts';
import type { ApiKeyRecord } from '../../store/api-keys.ts';
import { sendRejection } from '../wire-errors.ts';
import { rateLimitHeaders, type AccountRateLimiter } from './rate-limit.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the API-key hook on every /v1 route that passed authentication. */
    caller?: { readonly account: Account; readonly key: ApiKeyRecord };
  }
}

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
 * key present → key valid → caller's IP allowed → within the account's rate.
 */
export function apiKeyHook(deps: { keys: KeyDeps; rateLimiter: AccountRateLimiter }) {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '' || /^Bearer\s*$/i.test(header.trim())) {
      return void sendRejection(reply, { code: 'noApiKey' });
    }
    const token = BEARER.exec(header)?.[1];
    if (token === undefined) return void sendRejection(reply, { code: 'invalidApiKey' });

    let authentication;
    try {
      authentication = await authenticateApiKey(deps.keys, token);
    } catch (error) {
      request.log.error({ err: error }, 'key store failed during authentication');
      return void sendRejection(reply, { code: 'authInternal' });
    }
    if (authentication.kind === 'invalid') return void sendRejection(reply, { code: 'invalidApiKey' });
    const { account, key } = authentication;

    let allowed: boolean;
    try {
      allowed = isIpAllowed(allowListOf(account), request.ip);
    } catch (error) {
      request.log.error({ err: error }, 'allow-list check failed');
      return void sendRejection(reply, { code: 'authInternal' });
    }
    if (!allowed) return void sendRejection(reply, { code: 'ipNotAllowed' });

    const decision = await deps.rateLimiter.consume(account.id, account.rateLimitPerSecond);
    // Redis out and HERALD_REDIS_FAILURE=closed: no request goes uncounted.
    if (decision === 'unavailable') return void sendRejection(reply.header('retry-after', '1'), { code: 'storeUnavailable' });
    reply.headers(rateLimitHeaders(decision));
    if (!decision.allowed) return void sendRejection(reply, { code: 'rateLimited' });

    request.caller = { account, key };
  };
}

/** Per-route scope check; the spec's 401 `API key not authorized.` */
export function requireScope(scope: Scope) {
  return async function checkScope(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (!request.caller?.key.scopes.includes(scope)) return void sendRejection(reply, { code: 'keyNotAuthorized' });
  };
}

/** The authenticated caller of a route behind apiKeyHook. */
export function callerOf(request: FastifyRequest): { readonly account: Account; readonly key: ApiKeyRecord } {
  if (!request.caller) throw new Error('route is not behind the API-key hook');
  return request.caller;
}
