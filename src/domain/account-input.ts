// Bodies and queries of the account's own operations (/v1/account, /v1/api-keys,
// /v1/ledger, /v1/usage: issue 12), snake_case as on the rest of /v1. Their bodies are
// checked by their route schemas (http/schemas/); what a schema cannot say is checked
// here, with herald's field texts (`invalidField` with `<field>: <what is wrong>`).
import { SCOPES, type Scope } from './access.ts';
import { invalidField, ISO_TIME, parseExpiry } from './admin-input.ts';
import type { KeyMode } from './key-mode.ts';
import type { AllowListAppliesTo } from './account.ts';
import { isIpAllowed, normaliseAllowList, parseAllowList } from './ip-allow-list.ts';
import { ownField, type JsonObject } from './json-object.ts';
import { ok, reject, type Result } from './result.ts';

import { KEY_NAME_MAX } from './text-limits.ts';

export { KEY_NAME_MAX };
export const KEY_NAME_PROBLEM = `must be 1 to ${KEY_NAME_MAX} characters, without control characters`;
export const ALLOW_LIST_MAX = 1000;

/** What PATCH /v1/account may change: the allow-list and whom it binds. */
export interface AccountChange {
  readonly ipAllowList?: readonly string[];
  readonly allowListAppliesTo?: AllowListAppliesTo;
}

/** What PATCH /v1/account's schema (http/schemas/account.ts) has let through: each entry an address or CIDR range. */
export interface CheckedAccountChange {
  readonly ip_allow_list?: readonly string[];
  readonly allow_list_applies_to?: AllowListAppliesTo;
}

/** PATCH /v1/account after its schema: the entries in canonical form, repeats dropped. */
export function refineAccountChange(body: CheckedAccountChange): Result<AccountChange> {
  const { ip_allow_list: entries, allow_list_applies_to: appliesTo } = body;
  const change: { -readonly [K in keyof AccountChange]: AccountChange[K] } = {};
  if (entries !== undefined) {
    const list = parseAllowList(entries);
    if (!list.ok) return list;
    change.ipAllowList = normaliseAllowList(list.value);
  }
  if (appliesTo !== undefined) change.allowListAppliesTo = appliesTo;
  return ok(change);
}

/**
 * Whether a person saving the account's allow-list from `saverIp` (with a session) keeps
 * the web application: a list that binds sessions (`all`) and lets that address in, an
 * empty list, or one that binds keys only. Refused otherwise, naming the address, so
 * nobody shuts the whole account out of the application by a slip (issue 19).
 */
export function keepsSaverIn(settings: { readonly ipAllowList: readonly string[]; readonly allowListAppliesTo: AllowListAppliesTo }, saverIp: string): Result<void> {
  if (settings.allowListAppliesTo === 'keys') return ok(undefined);
  const list = parseAllowList(settings.ipAllowList);
  if (list.ok && isIpAllowed(list.value, saverIp)) return ok(undefined);
  return reject('allowListLocksOut', {
    detail: `ip_allow_list: does not include your address ${saverIp}, and the list applies to sessions too; add ${saverIp} to the list, or set allow_list_applies_to to "keys" so that it binds API keys only`,
  });
}

export interface NewOwnKey {
  readonly name: string;
  readonly scopes: readonly Scope[];
  readonly expiresAt: number | null;
  /** Absent: the mode of the key (or user) making it (a test key makes test keys). */
  readonly mode?: KeyMode;
}

// Control characters (C0, DEL, C1): refused in a name, as parseText refuses them.
const CONTROLS = '\\u0000-\\u001f\\u007f-\\u009f';

/**
 * parseText's rule as a schema pattern: no control character, and 1 to `max` characters
 * once trimmed (JavaScript's trim removes exactly what `\s` matches).
 */
export const trimmedTextPattern = (max: number): string =>
  `^[^\\S${CONTROLS}]*[^\\s${CONTROLS}](?:[^${CONTROLS}]{0,${max - 2}}[^\\s${CONTROLS}])?[^\\S${CONTROLS}]*$`;

/** What POST /v1/api-keys's schema (http/schemas/api-keys.ts) has let through. */
export interface CheckedNewOwnKey {
  readonly name: string;
  readonly scopes: readonly Scope[];
  readonly expires_at?: string | null;
  readonly mode?: KeyMode;
}

/** POST /v1/api-keys after its schema: the name trimmed, the scopes a set in canonical order, the expiry in the future. */
export function refineNewOwnKey(body: CheckedNewOwnKey, now: number): Result<NewOwnKey> {
  const expiry = parseExpiry(body.expires_at, 'expires_at', now);
  if (!expiry.ok) return expiry;
  return ok({ name: body.name.trim(), scopes: SCOPES.filter((s) => body.scopes.includes(s)), expiresAt: expiry.value, ...(body.mode === undefined ? {} : { mode: body.mode }) });
}

export const TIME_BOUND_PROBLEM = 'must be an ISO-8601 time or epoch milliseconds';

/** A time bound of a query: ISO-8601 or epoch milliseconds. */
export function parseTimeBound(raw: unknown, field: string): Result<number | undefined> {
  if (raw === undefined || raw === '') return ok(undefined);
  const text = typeof raw === 'string' ? raw : '';
  const at = /^[0-9]{1,15}$/.test(text) ? Number(text) : ISO_TIME.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isSafeInteger(at) ? ok(at) : invalidField(field, TIME_BOUND_PROBLEM);
}

/** A whole number query parameter (a page size, a number of days) from 1 to max, `fallback` when absent. */
export function parseCount(raw: unknown, field: string, max: number, fallback: number): Result<number> {
  if (raw === undefined || raw === '') return ok(fallback);
  // The route's schema may have coerced it to a number already (http/input-validation.ts).
  const n = typeof raw === 'number' && Number.isInteger(raw) ? raw : typeof raw === 'string' && /^[0-9]{1,4}$/.test(raw) ? Number(raw) : Number.NaN;
  return n >= 1 && n <= max ? ok(n) : invalidField(field, `must be a whole number from 1 to ${max}`);
}

/** The query object Fastify parsed, as own fields only. */
export function queryFields(raw: unknown): (key: string) => unknown {
  // Fastify's query parser gives an object of its own class, not a plain one.
  const query: JsonObject = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as JsonObject) : {};
  return (key) => ownField(query, key);
}
