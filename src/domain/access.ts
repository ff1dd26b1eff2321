import { CHANNELS, type Channel } from './account.ts';

// Who may call a /v1 route. Every route declares once what it needs: a scope and an
// access level. API keys pass by scope; users of the web application (issue 12) pass
// by role. README "API keys" has the table of routes.

/** API key scopes: the three channels, the account's webhooks, and the account itself (keys, users, settings). */
export const SCOPES = [...CHANNELS, 'webhooks', 'account'] as const;
export type Scope = (typeof SCOPES)[number];

export const isScope = (value: unknown): value is Scope => (SCOPES as readonly unknown[]).includes(value);

/** What a key created without `scopes` gets, and an account's first key: every scope. */
export const ALL_SCOPES: readonly Scope[] = SCOPES;

export const ACCESS_LEVELS = ['read', 'write', 'owner'] as const;
export type Access = (typeof ACCESS_LEVELS)[number];

/**
 * A route's scope: one of the scopes, or `channel`: the scope of the channel of the
 * message the route addresses (a message, its raw content). The route's handler knows
 * the channel only once it has read the message, so it checks it against channelsOf;
 * before that the caller must hold at least one channel scope. `any`: every key of the
 * account, whatever its scopes (what the server tells every application alike).
 */
export type RouteScope = Scope | 'channel' | 'any';

/** A route's declaration: `config: { access: { scope, access } }`. */
export interface RouteAccess {
  readonly scope: RouteScope;
  readonly access: Access;
}

export const ROLES = ['viewer', 'developer', 'owner'] as const;
export type Role = (typeof ROLES)[number];

/**
 * What a caller holds, whatever kind it is: its scopes and the access levels it may
 * use. Keys: their scopes, owner level only with `account`. Users: every scope, the
 * levels of their role (viewer reads, developer reads and writes, owner does all).
 */
export interface Grant {
  readonly scopes: readonly Scope[];
  readonly access: readonly Access[];
}

export function keyGrant(scopes: readonly Scope[]): Grant {
  return { scopes, access: scopes.includes('account') ? ACCESS_LEVELS : ['read', 'write'] };
}

const ROLE_ACCESS: Readonly<Record<Role, readonly Access[]>> = {
  viewer: ['read'],
  developer: ['read', 'write'],
  owner: ACCESS_LEVELS,
};

export function roleGrant(role: Role): Grant {
  return { scopes: SCOPES, access: ROLE_ACCESS[role] };
}

const isChannel = (scope: Scope): scope is Channel => (CHANNELS as readonly string[]).includes(scope);

/** The route's declaration against the grant; `channel`: any channel scope (the route checks the message's own); `any`: no scope. */
export function grantAllows(grant: Grant, need: RouteAccess): boolean {
  if (!grant.access.includes(need.access)) return false;
  if (need.scope === 'any') return true;
  return need.scope === 'channel' ? grant.scopes.some(isChannel) : grant.scopes.includes(need.scope);
}

/** The channels whose messages the grant reaches, in channel order. */
export function channelsOf(grant: Grant): readonly Channel[] {
  return CHANNELS.filter((channel) => grant.scopes.includes(channel));
}
