import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { channelsOf, grantAllows, keyGrant, roleGrant, type Grant, type RouteAccess } from '../domain/access.ts';
import type { Account, Channel } from '../domain/account.ts';
import type { KeyMode, TestKeyRule } from '../domain/key-mode.ts';
import type { SessionRecord, User } from '../domain/user.ts';
import type { ApiKeyRecord } from '../app/api-keys.ts';
import { applicationError } from './schemas/errors.ts';
import { REFUSED_DETAIL, testKeyRefusal, testKeyRuleOf } from './test-key-rules.ts';
import { refuseBeforeBody, sendRejection } from './wire-errors.ts';

// Route access on /v1: each route declares `config: { access: { scope, access } }`
// once; declareRouteAccess refuses to register a route without one and writes it into
// the OpenAPI document; routeAccessHook checks it against the caller, before the body
// is read. The caller is whoever the authentication hook found.

/**
 * Who is calling: an API key, or a user of the web application signed in with the
 * session cookie (`token` is the cookie's value, for the CSRF check and sign-out).
 */
export type Principal =
  | { readonly kind: 'key'; readonly key: ApiKeyRecord }
  | { readonly kind: 'user'; readonly user: User; readonly session: SessionRecord; readonly token: string };

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
    /** Only a signed-in user may call it (the user's own settings: /v1/session, /v1/me/…); a key gets `API key not authorized.` */
    sessionOnly?: boolean;
    /** What a test key may do here (http/test-key-rules.ts); set by declareRouteAccess. */
    testKeys?: TestKeyRule;
  }
}

/** The one place a principal's kind is told apart. */
export function grantOf(principal: Principal): Grant {
  switch (principal.kind) {
    case 'key':
      return keyGrant(principal.key.scopes);
    case 'user':
      return roleGrant(principal.user.role);
  }
}

/** The authenticated caller of a route behind the authentication hook. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Error('route is not behind the authentication hook');
  return request.caller;
}

/**
 * onRequest, after authentication: the caller's grant against the route's declaration
 * (the spec's 401 `API key not authorized.`), then a test key against the route's
 * test-key rule (403 `A test key cannot do this`; `test-only` routes check the thing
 * they reach and answer with refuseLiveThing).
 */
export async function routeAccessHook(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { access: need, sessionOnly, testKeys } = request.routeOptions.config;
  const { principal } = callerOf(request);
  // declareRouteAccess makes a missing declaration impossible for a registered route; fail closed anyway.
  if (need === undefined || (sessionOnly === true && principal.kind !== 'user') || !grantAllows(grantOf(principal), need)) {
    return void refuseBeforeBody(reply, { code: 'keyNotAuthorized' });
  }
  if (principal.kind === 'key' && principal.key.mode === 'test' && (testKeys === undefined || testKeys === 'refused')) {
    return void refuseBeforeBody(reply, testKeyRefusal(REFUSED_DETAIL));
  }
}

/** A `test-only` route's refusal of a live thing to a test key (403, with what it may do instead). */
export const refuseLiveThing = (reply: FastifyReply, detail: string): FastifyReply => sendRejection(reply, testKeyRefusal(detail));

/** The signed-in user of a sessionOnly route. */
export function signedInOf(request: FastifyRequest): Caller & { readonly principal: Extract<Principal, { kind: 'user' }> } {
  const caller = callerOf(request);
  if (caller.principal.kind !== 'user') throw new Error('route is not sessionOnly');
  return caller as Caller & { readonly principal: Extract<Principal, { kind: 'user' }> };
}

/** The mode of what the caller sends: its key's (live or test, docs/sandbox.md); a signed-in user's sends are live. */
export function sendingMode(request: FastifyRequest): KeyMode {
  const { principal } = callerOf(request);
  return principal.kind === 'key' ? principal.key.mode : 'live';
}

/** The channels whose messages the caller may see. */
export function visibleChannels(request: FastifyRequest): readonly Channel[] {
  return channelsOf(grantOf(callerOf(request).principal));
}

const CHANNEL_ALTERNATIVES = ['email', 'sms', 'whatsapp'] as const;

/** The OpenAPI security requirement of a declaration: bearer roles are the scopes (OpenAPI 3.1 allows roles on any scheme). */
function securityOf(need: RouteAccess): Record<string, string[]>[] {
  const owner = need.access === 'owner' && need.scope !== 'account' ? ['account'] : [];
  if (need.scope === 'any') return [{ bearerAuth: owner }];
  const scopes = need.scope === 'channel' ? CHANNEL_ALTERNATIVES : [need.scope];
  return scopes.map((scope) => ({ bearerAuth: [scope, ...owner] }));
}

function describe(need: RouteAccess, sessionOnly: boolean): string {
  if (sessionOnly) return 'Access: signed-in users only (the session cookie and `X-CSRF-Token`); API keys get `API key not authorized.`';
  const scope = need.scope === 'channel' ? 'the scope of the message\'s channel (`email`, `sms` or `whatsapp`)'
    : need.scope === 'any' ? 'no particular scope (any key of the account)' : `scope \`${need.scope}\``;
  const owner = need.access === 'owner' && need.scope !== 'account' ? ' and `account`' : '';
  const role = { read: 'any role', write: 'developer or owner', owner: 'owner' }[need.access];
  return `Access: ${need.access}. Keys need ${scope}${owner}; users (the session cookie, \`X-CSRF-Token\` on changes) need ${role}.`;
}

const TEST_KEYS_TEXT: Readonly<Record<TestKeyRule, string>> = {
  allowed: 'Test keys: allowed (what they write stays in the sandbox, docs/sandbox.md).',
  'test-only': 'Test keys: on test things only (a test key, a test campaign, a simulator address); a live one answers 403 `A test key cannot do this`.',
  refused: 'Test keys: refused (403 `A test key cannot do this`): this changes the account\'s settings or something live.',
};

/** onRoute of the /v1 plugin: every route declares its access, and the document shows it. */
export function declareRouteAccess(route: RouteOptions): void {
  const need = route.config?.access;
  if (need === undefined) throw new Error(`${String(route.method)} ${route.url} declares no access (config.access)`);
  const sessionOnly = route.config?.sessionOnly === true;
  const method = String(route.method);
  const testKeys = sessionOnly ? 'refused' : testKeyRuleOf(method, route.url, need);
  if (testKeys === undefined) throw new Error(`${method} ${route.url} writes and says nothing of test keys (http/test-key-rules.ts)`);
  route.config = { ...route.config, testKeys };
  const schema = route.schema ?? {};
  const response = (schema.response ?? {}) as Record<string, unknown>;
  route.schema = {
    ...schema,
    description: [schema.description, describe(need, sessionOnly), sessionOnly ? undefined : TEST_KEYS_TEXT[testKeys]].filter(Boolean).join('\n\n'),
    security: sessionOnly ? [{ sessionCookie: [] }] : securityOf(need),
    'x-herald-scope': need.scope,
    'x-herald-access': need.access,
    ...(sessionOnly ? {} : { 'x-herald-test-keys': testKeys }),
    ...(sessionOnly ? { 'x-herald-session-only': true } : {}),
    response: {
      401: { description: 'The caller lacks the scope or role (`API key not authorized.`)', ...applicationError },
      ...(sessionOnly || testKeys === 'allowed' ? {} : { 403: { description: 'A test key where only a live key may act (`A test key cannot do this`, with `detail`)', ...applicationError } }),
      ...response,
    },
  } as RouteOptions['schema'];
}
