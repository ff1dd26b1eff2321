// The operator console's session: sign in with the admin token, use the admin API with
// the cookie (and the CSRF token on changes), sign out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_TOKEN } from '../support/service.ts';
import { T0, usersWorld } from '../support/users.ts';
import type { Service } from '../../src/service.ts';

async function consoleSignIn(service: Service): Promise<{ cookie: string; csrf: string }> {
  const res = await service.http.inject({ method: 'POST', url: '/admin/v1/session', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ token: ADMIN_TOKEN }) });
  assert.equal(res.statusCode, 200, res.body);
  const cookie = res.cookies.find((c) => c.name === 'herald_admin_session');
  assert.ok(cookie !== undefined);
  return { cookie: cookie.value, csrf: res.json().csrf_token };
}

test('the admin token signs the operator in to the console with an HttpOnly cookie', async (t) => {
  const { service } = await usersWorld(t);
  const res = await service.http.inject({ method: 'POST', url: '/admin/v1/session', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ token: ADMIN_TOKEN }) });
  assert.equal(res.statusCode, 200);
  assert.match(res.json().csrf_token, /^[A-Za-z0-9_-]{43}$/);
  assert.deepStrictEqual(res.json(), { csrf_token: res.json().csrf_token, expires_at: new Date(T0 + 12 * 3_600_000).toISOString() });
  assert.match(String(res.headers['set-cookie']), /^herald_admin_session=[A-Za-z0-9_-]{43}; Path=\/admin; HttpOnly; SameSite=Lax$/);
});

test('a wrong token signs nobody in', async (t) => {
  const { service } = await usersWorld(t);
  const res = await service.http.inject({ method: 'POST', url: '/admin/v1/session', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ token: 'not-the-admin-token' }) });
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'Admin token missing or invalid' });
  assert.equal(res.headers['set-cookie'], undefined);
});

test('GET /admin/v1/session reads the console session; without one it is 401', async (t) => {
  const { service } = await usersWorld(t);
  const session = await consoleSignIn(service);
  const res = await service.http.inject({ method: 'GET', url: '/admin/v1/session', cookies: { herald_admin_session: session.cookie } });
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), { csrf_token: session.csrf, expires_at: new Date(T0 + 12 * 3_600_000).toISOString() });
  const none = await service.http.inject({ method: 'GET', url: '/admin/v1/session' });
  assert.equal(none.statusCode, 401);
  assert.deepStrictEqual(none.json(), { message: 'Admin token missing or invalid' });
});

test('the console cookie reaches the admin API; a change needs its CSRF token', async (t) => {
  const { service, account } = await usersWorld(t);
  const session = await consoleSignIn(service);
  const read = await service.http.inject({ method: 'GET', url: `/admin/v1/accounts/${account.id}/users`, cookies: { herald_admin_session: session.cookie } });
  assert.equal(read.statusCode, 200);
  assert.deepStrictEqual(read.json(), { users: [] });
  const payload = JSON.stringify({ email: 'ana@example.org', role: 'owner' });
  const refused = await service.http.inject({
    method: 'POST', url: `/admin/v1/accounts/${account.id}/users`, cookies: { herald_admin_session: session.cookie }, headers: { 'content-type': 'application/json' }, payload,
  });
  assert.equal(refused.statusCode, 403);
  assert.deepStrictEqual(refused.json(), { message: 'CSRF token missing or invalid' });
  const invited = await service.http.inject({
    method: 'POST', url: `/admin/v1/accounts/${account.id}/users`, cookies: { herald_admin_session: session.cookie },
    headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf }, payload,
  });
  assert.equal(invited.statusCode, 201);
});

test('signing out of the console ends its session', async (t) => {
  const { service, account } = await usersWorld(t);
  const session = await consoleSignIn(service);
  const forced = await service.http.inject({ method: 'DELETE', url: '/admin/v1/session', cookies: { herald_admin_session: session.cookie } });
  assert.equal(forced.statusCode, 403);
  const out = await service.http.inject({ method: 'DELETE', url: '/admin/v1/session', cookies: { herald_admin_session: session.cookie }, headers: { 'x-csrf-token': session.csrf } });
  assert.equal(out.statusCode, 204);
  assert.match(String(out.headers['set-cookie']), /^herald_admin_session=; Max-Age=0;/);
  const res = await service.http.inject({ method: 'GET', url: `/admin/v1/accounts/${account.id}/users`, cookies: { herald_admin_session: session.cookie } });
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'Admin token missing or invalid' });
});
