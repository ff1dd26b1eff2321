// Users and sessions over HTTP, as a browser and an operator would drive them: invite
// through the admin API, accept the link, sign in, and requests carrying the cookie
// and the CSRF token.
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { Service, ServiceOptions } from '../../src/service.ts';
import { ADMIN_TOKEN, openAccount, startService, type TestAccount } from './service.ts';

export const T0 = Date.parse('2030-01-01T09:00:00.000Z');
export const PASSWORD = 'correct horse battery staple';

export interface UsersWorld {
  readonly service: Service;
  readonly account: TestAccount;
  /** The service's clock; move `now` to pass time. */
  readonly clock: { now: number };
}

/** A service on a clock standing at T0 and an account (acme). */
export async function usersWorld(t: TestContext, options: ServiceOptions & { env?: Record<string, string> } = {}): Promise<UsersWorld> {
  const clock = { now: T0 };
  const service = await startService(t, { clock: () => clock.now, ...options });
  const account = await openAccount(service);
  return { service, account, clock };
}

/** A browser's session: the cookie's value and the CSRF token herald answered. */
export interface BrowserSession {
  readonly cookie: string;
  readonly csrf: string;
}

export function adminRequest(service: Service, method: 'GET' | 'POST', url: string, body?: unknown): Promise<LightMyRequestResponse> {
  return service.http.inject({
    method, url, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

/** The token of an invitation_url (after the `#`). */
export function tokenOf(url: string): string {
  const token = url.split('#')[1];
  assert.ok(token !== undefined && token.length > 20, url);
  return token;
}

/** The operator invites a user; the token of the link. */
export async function invite(service: Service, accountId: string, email: string, role: string): Promise<string> {
  const res = await adminRequest(service, 'POST', `/admin/v1/accounts/${accountId}/users`, { email, role });
  assert.equal(res.statusCode, 201, res.body);
  return tokenOf(res.json().invitation_url);
}

export function publicPost(service: Service, url: string, body: unknown, remoteAddress = '127.0.0.1'): Promise<LightMyRequestResponse> {
  return service.http.inject({ method: 'POST', url, remoteAddress, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });
}

/** The session a sign-in answer started (its cookie and csrf_token). */
export function sessionOf(res: LightMyRequestResponse): BrowserSession {
  assert.equal(res.statusCode, 200, res.body);
  const cookie = res.cookies.find((c) => c.name === 'herald_session');
  assert.ok(cookie !== undefined, 'no herald_session cookie');
  return { cookie: cookie.value, csrf: res.json().csrf_token };
}

/** Invites a user, accepts the invitation with PASSWORD: the user's id and first session. */
export async function signedInUser(world: UsersWorld, email: string, role: string, accountId = world.account.id): Promise<BrowserSession & { userId: string }> {
  const token = await invite(world.service, accountId, email, role);
  const res = await publicPost(world.service, '/v1/auth/invitation/accept', { token, password: PASSWORD });
  return { ...sessionOf(res), userId: res.json().user.user_id };
}

export async function signIn(service: Service, email: string, password = PASSWORD, extra: Record<string, unknown> = {}): Promise<LightMyRequestResponse> {
  return publicPost(service, '/v1/auth/sign-in', { email, password, ...extra });
}

/** A request as the web application makes it: the cookie, and the CSRF token on changes unless `csrf` says otherwise. */
export function asUser(
  service: Service, session: BrowserSession, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string,
  body?: unknown, csrf: string | null = session.csrf,
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrf !== null) headers['x-csrf-token'] = csrf;
  return service.http.inject({ method, url, headers, cookies: { herald_session: session.cookie }, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) });
}
