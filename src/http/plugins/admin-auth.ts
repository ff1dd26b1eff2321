import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AdminTokenCheck } from '../../app/admin-token.ts';
import { resolveOperatorSession, type AuthDeps } from '../../app/sessions.ts';
import { ADMIN_SESSION_COOKIE } from '../account-api-schemas.ts';
import { csrfPasses } from './csrf.ts';
import { refuseBeforeBody } from '../wire-errors.ts';

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

/**
 * onRequest hook of the operator API: `Authorization: Bearer <HERALD_ADMIN_TOKEN>`, or
 * the operator console's session cookie (made by POST /admin/v1/session with the same
 * token) with its CSRF token on every change. Missing and wrong credentials get the
 * same 401, so the answer tells nothing about which; the connection closes after it,
 * the body unread.
 */
export function adminAuthHook(adminToken: AdminTokenCheck, deps: AuthDeps) {
  return async function authenticateAdmin(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const token = BEARER.exec(request.headers.authorization ?? '')?.[1];
    const cookie = request.cookies[ADMIN_SESSION_COOKIE];
    if (token === undefined && cookie !== undefined && cookie !== '') {
      const session = await resolveOperatorSession(deps, cookie);
      if (session === undefined) return void refuseBeforeBody(reply, { code: 'adminUnauthorized' });
      if (!csrfPasses(request, deps, cookie)) return void refuseBeforeBody(reply, { code: 'csrfRefused' });
      return;
    }
    // verify() compares in constant time; it runs on every attempt, present or not.
    const valid = adminToken.verify(token ?? '');
    if (token === undefined || !valid) return void refuseBeforeBody(reply, { code: 'adminUnauthorized' });
  };
}
