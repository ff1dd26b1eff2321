import type { FastifyReply } from 'fastify';
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { AppDeps } from '../../app/deps.ts';
import { ADMIN_SESSION_COOKIE, SESSION_COOKIE } from '../schemas/sessions.ts';

// The session cookies: HttpOnly (no script reads them), SameSite=Lax (not sent with
// another site's POST), Secure when herald's public URL is https, and a path that
// keeps each one to the API that reads it. No Max-Age: the server's row decides when
// a session ends, and the browser forgets the cookie when it closes.

const ACCOUNT_PATH = '/v1';
const OPERATOR_PATH = '/admin';

function options(deps: Pick<AppDeps, 'publicUrl'>, path: string): CookieSerializeOptions {
  return { httpOnly: true, sameSite: 'lax', secure: deps.publicUrl.startsWith('https:'), path };
}

export function setSessionCookie(reply: FastifyReply, deps: Pick<AppDeps, 'publicUrl'>, token: string): FastifyReply {
  return reply.setCookie(SESSION_COOKIE, token, options(deps, ACCOUNT_PATH));
}

export function clearSessionCookie(reply: FastifyReply, deps: Pick<AppDeps, 'publicUrl'>): FastifyReply {
  return reply.clearCookie(SESSION_COOKIE, options(deps, ACCOUNT_PATH));
}

export function setOperatorCookie(reply: FastifyReply, deps: Pick<AppDeps, 'publicUrl'>, token: string): FastifyReply {
  return reply.setCookie(ADMIN_SESSION_COOKIE, token, options(deps, OPERATOR_PATH));
}

export function clearOperatorCookie(reply: FastifyReply, deps: Pick<AppDeps, 'publicUrl'>): FastifyReply {
  return reply.clearCookie(ADMIN_SESSION_COOKIE, options(deps, OPERATOR_PATH));
}
