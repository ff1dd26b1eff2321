import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AdminTokenCheck } from '../../app/admin-token.ts';
import { resolveOperatorSession, type AuthDeps } from '../../app/sessions.ts';
import { ADMIN_SESSION_COOKIE } from '../schemas/sessions.ts';
import { csrfPasses } from './csrf.ts';
import { refuseBeforeBody } from '../wire-errors.ts';
import { retryAfterSeconds, takeCredentialTry, type AttemptThrottle, type RefusedAttempt } from './attempt-throttle.ts';

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

const ADMIN_LADDERS = { pair: 'adminIp', subject: 'adminAny' } as const;

/**
 * One try at the admin token, taken from this IP's counter (and the token's, for IPs
 * that never gave it) before the comparison, given back when it is right: guessing
 * waits 2, 4, 8… seconds after the first few wrong tokens, and the console and the
 * bearer header share the count.
 */
export async function tryAdminToken(
  deps: { adminToken: AdminTokenCheck; attemptThrottle: AttemptThrottle }, presented: string, ip: string,
): Promise<'right' | 'wrong' | RefusedAttempt> {
  const attempt = await takeCredentialTry(deps.attemptThrottle, ADMIN_LADDERS, 'admin token', ip);
  if (!attempt.allowed) return attempt;
  if (!deps.adminToken.verify(presented)) return 'wrong';
  await attempt.right();
  await attempt.remember();
  return 'right';
}

/**
 * onRequest hook of the operator API: `Authorization: Bearer <HERALD_ADMIN_TOKEN>`, or
 * the operator console's session cookie (made by POST /admin/v1/session with the same
 * token) with its CSRF token on every change. Missing and wrong credentials get the
 * same 401, so the answer tells nothing about which; the connection closes after it,
 * the body unread.
 */
export function adminAuthHook(throttled: { adminToken: AdminTokenCheck; attemptThrottle: AttemptThrottle }, deps: AuthDeps) {
  return async function authenticateAdmin(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const token = BEARER.exec(request.headers.authorization ?? '')?.[1];
    const cookie = request.cookies[ADMIN_SESSION_COOKIE];
    if (token === undefined && cookie !== undefined && cookie !== '') {
      const session = await resolveOperatorSession(deps, cookie);
      if (session === undefined) return void refuseBeforeBody(reply, { code: 'adminUnauthorized' });
      if (!csrfPasses(request, deps, cookie)) return void refuseBeforeBody(reply, { code: 'csrfRefused' });
      return;
    }
    if (token === undefined) return void refuseBeforeBody(reply, { code: 'adminUnauthorized' });
    // verify() compares in constant time, after a try is taken from the guessing counters.
    const tried = await tryAdminToken(throttled, token, request.ip);
    if (tried === 'wrong') return void refuseBeforeBody(reply, { code: 'adminUnauthorized' });
    if (tried !== 'right') return void refuseBeforeBody(reply.header('retry-after', retryAfterSeconds(tried.retryAfterMs)), { code: 'attemptsThrottled' });
  };
}
