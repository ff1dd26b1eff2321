import type { FastifyInstance } from 'fastify';
import { csrfTokenOf, endOperatorSession, resolveOperatorSession, startOperatorSession } from '../../../app/sessions.ts';
import { ErrorBody } from '../../schemas/errors.ts';
import { ADMIN_SESSION_COOKIE } from '../../schemas/sessions.ts';
import { OperatorSession, OperatorSignInRequest } from '../../schemas/sessions.ts';
import { refuseAttempt } from '../../plugins/attempt-throttle.ts';
import { tryAdminToken } from '../../plugins/admin-auth.ts';
import { csrfPasses } from '../../plugins/csrf.ts';
import { clearOperatorCookie, setOperatorCookie } from '../../plugins/session-cookie.ts';
import { sendRejection } from '../../wire-errors.ts';
import type { RouteDeps } from '../../route-deps.ts';

// The operator console's session: sign in with the admin token (POST), read it (GET),
// sign out (DELETE). Outside the admin hook: these routes are how one gets past it.

const tags = ['admin'];
const unauthorized = { 401: { description: '`Admin token missing or invalid` (or no live console session)', ...ErrorBody } };

export function operatorSessionRoutes(app: FastifyInstance, deps: RouteDeps): void {
  const auth = deps.app;
  const body = (csrfToken: string, expiresAt: number): OperatorSession => ({ csrf_token: csrfToken, expires_at: new Date(expiresAt).toISOString() });

  app.post<{ Body: OperatorSignInRequest }>('/admin/v1/session', {
    schema: { summary: 'Sign in to the operator console with the admin token; sets the console\'s session cookie', tags, body: OperatorSignInRequest, response: { 200: OperatorSession, 400: ErrorBody, ...unauthorized, 429: { description: '`Too many attempts, try again later`; Retry-After says when', ...ErrorBody } } },
  }, async (request, reply) => {
        const tried = await tryAdminToken(deps, request.body.token, request.ip);
    if (tried !== 'right') return tried === 'wrong' ? sendRejection(reply, { code: 'adminUnauthorized' }) : refuseAttempt(reply, tried, 'attemptsThrottled');
    const started = await startOperatorSession(auth);
    setOperatorCookie(reply, auth, started.token);
    return reply.code(200).send(body(started.csrfToken, started.session.expiresAt));
  });

  app.get('/admin/v1/session', {
    schema: { summary: 'The console\'s session and its CSRF token', tags, response: { 200: OperatorSession, ...unauthorized } },
  }, async (request, reply) => {
    const cookie = request.cookies[ADMIN_SESSION_COOKIE];
    const session = cookie === undefined || cookie === '' ? undefined : await resolveOperatorSession(auth, cookie);
    if (cookie === undefined || session === undefined) return sendRejection(clearOperatorCookie(reply, auth), { code: 'adminUnauthorized' });
    return reply.code(200).send(body(csrfTokenOf(auth, cookie), session.expiresAt));
  });

  app.delete('/admin/v1/session', {
    schema: { summary: 'Sign out of the operator console (with the session\'s X-CSRF-Token)', tags, response: { 204: { type: 'null', description: 'Signed out' }, 403: { description: '`CSRF token missing or invalid`', ...ErrorBody } } },
  }, async (request, reply) => {
    const cookie = request.cookies[ADMIN_SESSION_COOKIE];
    const session = cookie === undefined || cookie === '' ? undefined : await resolveOperatorSession(auth, cookie);
    if (session !== undefined) {
      if (!csrfPasses(request, auth, cookie ?? '')) return sendRejection(reply, { code: 'csrfRefused' });
      await endOperatorSession(auth, session.id);
    }
    return clearOperatorCookie(reply, auth).code(204).send();
  });
}
