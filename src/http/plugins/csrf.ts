import type { FastifyRequest } from 'fastify';
import { csrfMatches } from '../../app/sessions.ts';
import { CSRF_HEADER } from '../schemas/sessions.ts';

// CSRF protection of requests made with a session cookie (docs/users-and-sessions.md):
// a request that changes anything (every method but GET, HEAD, OPTIONS) carries the
// session's token in X-CSRF-Token. A page of another site can neither read the token
// (it is only in JSON answers, and herald sends no CORS headers) nor add a custom
// header to a cross-site request without CORS consent; the SameSite=Lax cookie is the
// second fence.

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether the request may go on: a safe method, or the header holds the token of the session `sessionToken`. */
export function csrfPasses(request: FastifyRequest, deps: Parameters<typeof csrfMatches>[0], sessionToken: string): boolean {
  if (SAFE_METHODS.has(request.method)) return true;
  const presented = request.headers[CSRF_HEADER];
  return csrfMatches(deps, sessionToken, typeof presented === 'string' ? presented : undefined);
}
