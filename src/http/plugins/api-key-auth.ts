import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticateApiKey, noteKeyUse, type KeyDeps } from '../../app/api-keys.ts';
import type { StoreOutage } from '../../app/store-outage.ts';
import { reportUnexpected } from '../failed-request.ts';
import { refuseBeforeBody, withRetryAfter } from '../wire-errors.ts';
import { admitAccount } from './account-admission.ts';
import type { AccountRateLimiter } from './rate-limit.ts';

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

/**
 * The spec's authentication layer, as an onRequest hook (before the body is read):
 * key present → key valid → caller's IP allowed → within the account's rate. It sets
 * `request.caller`; routeAccessHook, next, checks the route's scope. Every refusal
 * closes the connection (refuseBeforeBody).
 */
export function apiKeyHook(deps: { keys: KeyDeps; rateLimiter: AccountRateLimiter; outage: StoreOutage }) {
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
      // The database out is no failure of the key's: the client is told to come back (503).
      if (deps.outage.noticed(error, request.log)) return void refuseBeforeBody(withRetryAfter(reply), { code: 'storeUnavailable' });
      reportUnexpected(request, deps.keys.metrics, error, 'key store failed during authentication');
      return void refuseBeforeBody(reply, { code: 'authInternal' });
    }
    if (authentication.kind === 'invalid') return void refuseBeforeBody(reply, { code: 'invalidApiKey' });
    const { account, key } = authentication;
    if (!(await admitAccount(request, reply, account, { rateLimiter: deps.rateLimiter, metrics: deps.keys.metrics }))) return;
    try {
      await noteKeyUse(deps.keys, key.id, request.ip);
    } catch (error) {
      // The last-use column is information for people; a request is not refused over it.
      reportUnexpected(request, deps.keys.metrics, error, 'recording the key\'s last use failed');
    }
    request.caller = { account, principal: { kind: 'key', key } };
  };
}
