import type { FastifyReply, FastifyRequest } from 'fastify';
import { resolveUserSession, type AuthDeps } from '../../app/sessions.ts';
import type { StoreOutage } from '../../app/store-outage.ts';
import { SESSION_COOKIE } from '../schemas/sessions.ts';
import { reportUnexpected } from '../failed-request.ts';
import { refuseBeforeBody, withRetryAfter } from '../wire-errors.ts';
import { admitAccount } from './account-admission.ts';
import { apiKeyHook } from './api-key-auth.ts';
import { csrfPasses } from './csrf.ts';
import type { AccountRateLimiter } from './rate-limit.ts';
import { clearSessionCookie } from './session-cookie.ts';

// The /v1 authentication hook: an API key (Authorization header) or the web
// application's session cookie. A request with an Authorization header is a key's
// request whatever cookies it carries, so existing clients see the spec's answers
// unchanged, and one with neither gets the spec's `No API Key sent`.
// Changes made with the cookie need the session's CSRF token (plugins/csrf.ts).

export function v1AuthenticationHook(deps: { app: AuthDeps; rateLimiter: AccountRateLimiter; outage: StoreOutage }) {
  const byKey = apiKeyHook({ keys: deps.app, rateLimiter: deps.rateLimiter, outage: deps.outage });
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const token = request.cookies[SESSION_COOKIE];
    if (request.headers.authorization !== undefined || token === undefined || token === '') return byKey(request, reply);

    let signedIn;
    try {
      signedIn = await resolveUserSession(deps.app, token);
    } catch (error) {
      if (deps.outage.noticed(error, request.log)) return void refuseBeforeBody(withRetryAfter(reply), { code: 'storeUnavailable' });
      reportUnexpected(request, deps.app.metrics, error, 'session store failed during authentication');
      return void refuseBeforeBody(reply, { code: 'authInternal' });
    }
    if (signedIn === undefined) return void refuseBeforeBody(clearSessionCookie(reply, deps.app), { code: 'sessionExpired' });
    if (!csrfPasses(request, deps.app, token)) return void refuseBeforeBody(reply, { code: 'csrfRefused' });
    const allowance = { kind: 'user', userId: signedIn.user.id, perSecond: deps.app.auth.sessionRateLimitPerSecond } as const;
    if (!(await admitAccount(request, reply, signedIn.account, { rateLimiter: deps.rateLimiter, metrics: deps.app.metrics }, allowance))) return;
    request.caller = { account: signedIn.account, principal: { kind: 'user', user: signedIn.user, session: signedIn.session, token } };
  };
}
