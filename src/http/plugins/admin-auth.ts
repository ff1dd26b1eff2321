import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AdminTokenCheck } from '../../app/admin-token.ts';
import { refuseBeforeBody } from '../wire-errors.ts';

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

/**
 * onRequest hook of the operator API: `Authorization: Bearer <HERALD_ADMIN_TOKEN>`.
 * Missing and wrong tokens get the same 401, so the answer tells nothing about which;
 * the connection closes after it, the body unread.
 */
export function adminAuthHook(adminToken: AdminTokenCheck) {
  return async function authenticateAdmin(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const token = BEARER.exec(request.headers.authorization ?? '')?.[1];
    // verify() compares in constant time; it runs on every attempt, present or not.
    const valid = adminToken.verify(token ?? '');
    if (token === undefined || !valid) return void refuseBeforeBody(reply, { code: 'adminUnauthorized' });
  };
}
