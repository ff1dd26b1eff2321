import { SCOPES, type Scope } from './access.ts';

// Which scopes a caller may put on a key, the one rule the API applies (app/own-api-keys.ts)
// and the web application offers by (pages/api-keys.tsx): the `account` scope is owner
// level itself, so only a caller at owner level may hand it out, or take it away.

/** Scopes only a caller at owner level may give a key, or revoke a key holding. */
export const OWNER_ONLY_SCOPES: readonly Scope[] = ['account'];

/** Whether a key with these scopes needs a caller at owner level to make or revoke it. */
export const needsOwner = (scopes: readonly Scope[]): boolean => scopes.some((scope) => OWNER_ONLY_SCOPES.includes(scope));

/** The scopes a caller may give a key, in canonical order. */
export const grantableScopes = (isOwner: boolean): readonly Scope[] => (isOwner ? SCOPES : SCOPES.filter((scope) => !OWNER_ONLY_SCOPES.includes(scope)));
