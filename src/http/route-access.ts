import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { channelsOf, grantAllows, keyGrant, type Grant, type RouteAccess } from '../domain/access.ts';
import type { Account, Channel } from '../domain/account.ts';
import type { ApiKeyRecord } from '../store/api-keys.ts';
import { applicationError } from './schemas.ts';
import { refuseBeforeBody } from './wire-errors.ts';

// Route access on /v1: each route declares `config: { access: { scope, access } }`
// once; declareRouteAccess refuses to register a route without one and writes it into
// the OpenAPI document; routeAccessHook checks it against the caller, before the body
// is read. The caller is whoever the authentication hook found.

/** Who is calling: a key now; issue 12 adds `{ kind: 'user', user, session }` (and a branch in grantOf). */
export type Principal = { readonly kind: 'key'; readonly key: ApiKeyRecord };

export interface Caller {
  readonly account: Account;
  readonly principal: Principal;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication hook on every /v1 route that passed it. */
    caller?: Caller;
  }
  interface FastifyContextConfig {
    /** What a /v1 route needs; required on every route of the /v1 plugin. */
    access?: RouteAccess;
  }
}

/** The one place a principal's kind is told apart. */
export function grantOf(principal: Principal): Grant {
  switch (principal.kind) {
    case 'key':
      return keyGrant(principal.key.scopes);
  }
}

/** The authenticated caller of a route behind the authentication hook. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Error('route is not behind the authentication hook');
  return request.caller;
}

/** onRequest, after authentication: the caller's grant against the route's declaration; the spec's 401 `API key not authorized.` */
export async function routeAccessHook(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const need = request.routeOptions.config.access;
  // declareRouteAccess makes this impossible for a registered route; fail closed anyway.
  if (need === undefined || !grantAllows(grantOf(callerOf(request).principal), need)) {
    return void refuseBeforeBody(reply, { code: 'keyNotAuthorized' });
  }
}

/** The channels whose messages the caller may see. */
export function visibleChannels(request: FastifyRequest): readonly Channel[] {
  return channelsOf(grantOf(callerOf(request).principal));
}

const CHANNEL_ALTERNATIVES = ['email', 'sms', 'whatsapp'] as const;

/** The OpenAPI security requirement of a declaration: bearer roles are the scopes (OpenAPI 3.1 allows roles on any scheme). */
function securityOf(need: RouteAccess): Record<string, string[]>[] {
  const owner = need.access === 'owner' && need.scope !== 'account' ? ['account'] : [];
  const scopes = need.scope === 'channel' ? CHANNEL_ALTERNATIVES : [need.scope];
  return scopes.map((scope) => ({ bearerAuth: [scope, ...owner] }));
}

function describe(need: RouteAccess): string {
  const scope = need.scope === 'channel' ? 'the scope of the message\'s channel (`email`, `sms` or `whatsapp`)' : `scope \`${need.scope}\``;
  const owner = need.access === 'owner' && need.scope !== 'account' ? ' and `account`' : '';
  const role = { read: 'any role', write: 'developer or owner', owner: 'owner' }[need.access];
  return `Access: ${need.access}. Keys need ${scope}${owner}; users need ${role}.`;
}

/** onRoute of the /v1 plugin: every route declares its access, and the document shows it. */
export function declareRouteAccess(route: RouteOptions): void {
  const need = route.config?.access;
  if (need === undefined) throw new Error(`${String(route.method)} ${route.url} declares no access (config.access)`);
  const schema = route.schema ?? {};
  const response = (schema.response ?? {}) as Record<string, unknown>;
  route.schema = {
    ...schema,
    description: [schema.description, describe(need)].filter(Boolean).join('\n\n'),
    security: securityOf(need),
    'x-herald-scope': need.scope,
    'x-herald-access': need.access,
    response: { 401: { description: 'The caller lacks the scope or role (`API key not authorized.`)', ...applicationError }, ...response },
  } as RouteOptions['schema'];
}
