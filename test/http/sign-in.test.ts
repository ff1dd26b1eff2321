// Invitation, sign-in and the session over HTTP: what the web application's pages do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emailBody, post, UUID } from '../support/service.ts';
import { adminRequest, asUser, invite, PASSWORD, publicPost, sessionOf, signedInUser, signIn, T0, usersWorld } from '../support/users.ts';

const HOUR = 3_600_000;

test('the operator invites the first owner and gets a one-time link with the token after the #', async (t) => {
  const { service, account } = await usersWorld(t);
  const res = await adminRequest(service, 'POST', `/admin/v1/accounts/${account.id}/users`, { email: 'Ana@Example.org', role: 'owner' });
  assert.equal(res.statusCode, 201);
  const body = res.json();
  assert.match(body.user_id, UUID);
  assert.match(body.invitation_url, /^http:\/\/localhost:8080\/app\/invitation#[A-Za-z0-9_-]{43}$/);
  assert.deepStrictEqual(body, {
    user_id: body.user_id, email: 'ana@example.org', role: 'owner', status: 'invited',
    invitation_url: body.invitation_url, invitation_expires_at: new Date(T0 + 72 * HOUR).toISOString(), email_sent: false,
  });
});

test('the operator cannot invite into an account that does not exist', async (t) => {
  const { service } = await usersWorld(t);
  const res = await adminRequest(service, 'POST', '/admin/v1/accounts/0190b6d5-0000-7000-8000-000000000000/users', { email: 'ana@example.org', role: 'owner' });
  assert.equal(res.statusCode, 404);
  assert.deepStrictEqual(res.json(), { message: 'Not found' });
});

test('an invitation link shows the address, the account and the role', async (t) => {
  const { service, account } = await usersWorld(t);
  const token = await invite(service, account.id, 'ana@example.org', 'developer');
  const res = await publicPost(service, '/v1/auth/invitation', { token });
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), { email: 'ana@example.org', account_name: 'acme', role: 'developer', expires_at: new Date(T0 + 72 * HOUR).toISOString() });
});

test('accepting an invitation sets the password and answers the session with an HttpOnly SameSite=Lax cookie', async (t) => {
  const { service, account } = await usersWorld(t);
  const token = await invite(service, account.id, 'ana@example.org', 'owner');
  const res = await publicPost(service, '/v1/auth/invitation/accept', { token, password: PASSWORD });
  assert.equal(res.statusCode, 200);
  const body = res.json();
  assert.match(body.csrf_token, /^[A-Za-z0-9_-]{43}$/);
  assert.deepStrictEqual(body, {
    user: { user_id: body.user.user_id, email: 'ana@example.org', role: 'owner', totp_enabled: false, locale: null },
    account: { account_id: account.id, name: 'acme' },
    csrf_token: body.csrf_token,
    expires_at: new Date(T0 + 12 * HOUR).toISOString(),
  });
  const cookie = res.headers['set-cookie'];
  assert.equal(typeof cookie, 'string');
  assert.match(String(cookie), /^herald_session=[A-Za-z0-9_-]{43}; Path=\/v1; HttpOnly; SameSite=Lax$/);
});

test('the session cookie is Secure when the public URL is https', async (t) => {
  const world = await usersWorld(t, { env: { HERALD_PUBLIC_URL: 'https://herald.example.com' } });
  const token = await invite(world.service, world.account.id, 'ana@example.org', 'owner');
  const res = await publicPost(world.service, '/v1/auth/invitation/accept', { token, password: PASSWORD });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['set-cookie']), /^herald_session=[A-Za-z0-9_-]{43}; Path=\/v1; HttpOnly; Secure; SameSite=Lax$/);
});

test('an invitation link works once', async (t) => {
  const { service, account } = await usersWorld(t);
  const token = await invite(service, account.id, 'ana@example.org', 'owner');
  assert.equal((await publicPost(service, '/v1/auth/invitation/accept', { token, password: PASSWORD })).statusCode, 200);
  const again = await publicPost(service, '/v1/auth/invitation/accept', { token, password: 'another long password' });
  assert.equal(again.statusCode, 404);
  assert.deepStrictEqual(again.json(), { message: 'This link is invalid, used or expired' });
  const shown = await publicPost(service, '/v1/auth/invitation', { token });
  assert.equal(shown.statusCode, 404);
  assert.deepStrictEqual(shown.json(), { message: 'This link is invalid, used or expired' });
});

test('an invitation link stops working when it expires', async (t) => {
  const world = await usersWorld(t);
  const token = await invite(world.service, world.account.id, 'ana@example.org', 'owner');
  world.clock.now += 72 * HOUR;
  const res = await publicPost(world.service, '/v1/auth/invitation/accept', { token, password: PASSWORD });
  assert.equal(res.statusCode, 404);
  assert.deepStrictEqual(res.json(), { message: 'This link is invalid, used or expired' });
});

test('a password shorter than 12 characters is refused with the field named', async (t) => {
  const { service, account } = await usersWorld(t);
  const token = await invite(service, account.id, 'ana@example.org', 'owner');
  const res = await publicPost(service, '/v1/auth/invitation/accept', { token, password: 'short pass' });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Invalid request, a field has the wrong type or value', detail: 'password must be 12 to 256 characters' });
});

test('sign-in with the right password starts a new session each time, with a new id', async (t) => {
  const world = await usersWorld(t);
  const first = await signedInUser(world, 'ana@example.org', 'owner');
  const res = await signIn(world.service, 'ANA@example.org');
  const second = sessionOf(res);
  assert.notEqual(second.cookie, first.cookie);
  assert.notEqual(second.csrf, first.csrf);
  assert.equal(res.json().user.user_id, first.userId);
});

test('a wrong password and an unknown address get the same 401', async (t) => {
  const world = await usersWorld(t);
  await signedInUser(world, 'ana@example.org', 'owner');
  const wrong = await signIn(world.service, 'ana@example.org', 'not the password at all');
  const unknown = await signIn(world.service, 'nobody@example.org');
  assert.equal(wrong.statusCode, 401);
  assert.deepStrictEqual(wrong.json(), { message: 'Incorrect email or password' });
  assert.equal(unknown.statusCode, 401);
  assert.deepStrictEqual(unknown.json(), { message: 'Incorrect email or password' });
  assert.equal(wrong.headers['set-cookie'], undefined);
});

test('an invited user who has not accepted cannot sign in', async (t) => {
  const { service, account } = await usersWorld(t);
  await invite(service, account.id, 'ana@example.org', 'owner');
  const res = await signIn(service, 'ana@example.org', '');
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'Incorrect email or password' });
});

test('GET /v1/session answers the session the cookie carries', async (t) => {
  const world = await usersWorld(t);
  const session = await signedInUser(world, 'ana@example.org', 'developer');
  const res = await asUser(world.service, session, 'GET', '/v1/session');
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), {
    user: { user_id: session.userId, email: 'ana@example.org', role: 'developer', totp_enabled: false, locale: null },
    account: { account_id: world.account.id, name: 'acme' },
    csrf_token: session.csrf,
    expires_at: new Date(T0 + 12 * HOUR).toISOString(),
  });
});

test('without a cookie or a key, /v1 answers the spec\'s 403 No API Key sent', async (t) => {
  const { service } = await usersWorld(t);
  const res = await service.http.inject({ method: 'GET', url: '/v1/session' });
  assert.equal(res.statusCode, 403);
  assert.deepStrictEqual(res.json(), { error: 'No API Key sent' });
});

test('a cookie of no session gets 401 Session expired and the cookie cleared', async (t) => {
  const { service } = await usersWorld(t);
  const res = await service.http.inject({ method: 'GET', url: '/v1/session', cookies: { herald_session: 'made-up-value' } });
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'Session expired, sign in again' });
  assert.match(String(res.headers['set-cookie']), /^herald_session=; Max-Age=0; Path=\/v1; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax$/);
});

test('a session ends after the idle lifetime without a request', async (t) => {
  const world = await usersWorld(t, { env: { HERALD_SESSION_IDLE_MINUTES: '30' } });
  const session = await signedInUser(world, 'ana@example.org', 'owner');
  world.clock.now += 29 * 60_000;
  assert.equal((await asUser(world.service, session, 'GET', '/v1/session')).statusCode, 200);
  world.clock.now += 29 * 60_000;
  assert.equal((await asUser(world.service, session, 'GET', '/v1/session')).statusCode, 200);
  world.clock.now += 30 * 60_000;
  const res = await asUser(world.service, session, 'GET', '/v1/session');
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'Session expired, sign in again' });
});

test('a session ends at its absolute lifetime however active', async (t) => {
  const world = await usersWorld(t, { env: { HERALD_SESSION_MAX_HOURS: '2', HERALD_SESSION_IDLE_MINUTES: '60' } });
  const session = await signedInUser(world, 'ana@example.org', 'owner');
  for (let minutes = 50; minutes < 120; minutes += 50) {
    world.clock.now = T0 + minutes * 60_000;
    assert.equal((await asUser(world.service, session, 'GET', '/v1/session')).statusCode, 200);
  }
  world.clock.now = T0 + 2 * HOUR;
  const res = await asUser(world.service, session, 'GET', '/v1/session');
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'Session expired, sign in again' });
});

test('a change made with the cookie but without the CSRF token is refused', async (t) => {
  const world = await usersWorld(t);
  const session = await signedInUser(world, 'ana@example.org', 'owner');
  const missing = await asUser(world.service, session, 'POST', '/v1/users', { email: 'bo@example.org', role: 'viewer' }, null);
  assert.equal(missing.statusCode, 403);
  assert.deepStrictEqual(missing.json(), { message: 'CSRF token missing or invalid' });
  const wrong = await asUser(world.service, session, 'POST', '/v1/users', { email: 'bo@example.org', role: 'viewer' }, 'not-the-token');
  assert.equal(wrong.statusCode, 403);
  assert.deepStrictEqual(wrong.json(), { message: 'CSRF token missing or invalid' });
  const other = await signedInUser(world, 'cy@example.org', 'owner');
  const anotherSessions = await asUser(world.service, session, 'POST', '/v1/users', { email: 'bo@example.org', role: 'viewer' }, other.csrf);
  assert.equal(anotherSessions.statusCode, 403);
  const listed = await asUser(world.service, session, 'GET', '/v1/users');
  assert.deepStrictEqual(listed.json().users.map((u: { email: string }) => u.email), ['ana@example.org', 'cy@example.org']);
});

test('a change made with the cookie and its CSRF token goes through', async (t) => {
  const world = await usersWorld(t);
  const session = await signedInUser(world, 'ana@example.org', 'owner');
  const res = await asUser(world.service, session, 'POST', '/v1/users', { email: 'bo@example.org', role: 'viewer' });
  assert.equal(res.statusCode, 201);
  assert.equal(res.json().email, 'bo@example.org');
});

test('a request with an API key is a key\'s request whatever cookie it carries', async (t) => {
  const world = await usersWorld(t);
  const session = await signedInUser(world, 'ana@example.org', 'viewer');
  const res = await world.service.http.inject({
    method: 'POST', url: '/v1/email', cookies: { herald_session: session.cookie },
    headers: { authorization: `Bearer ${world.account.apiKey}`, 'content-type': 'application/json' }, payload: JSON.stringify(emailBody()),
  });
  assert.equal(res.statusCode, 200, res.body);
});

test('an API key cannot read a session: /v1/session is for signed-in users', async (t) => {
  const { service, account } = await usersWorld(t);
  const res = await service.http.inject({ method: 'GET', url: '/v1/session', headers: { authorization: `Bearer ${account.apiKey}` } });
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'API key not authorized.' });
});

test('sign-out ends the session', async (t) => {
  const world = await usersWorld(t);
  const session = await signedInUser(world, 'ana@example.org', 'owner');
  const out = await asUser(world.service, session, 'POST', '/v1/auth/sign-out');
  assert.equal(out.statusCode, 204);
  assert.match(String(out.headers['set-cookie']), /^herald_session=; Max-Age=0;/);
  const res = await asUser(world.service, session, 'GET', '/v1/session');
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'Session expired, sign in again' });
});

test('sign out everywhere ends the user\'s session in another browser too', async (t) => {
  const world = await usersWorld(t);
  const laptop = await signedInUser(world, 'ana@example.org', 'owner');
  const phone = sessionOf(await signIn(world.service, 'ana@example.org'));
  const res = await asUser(world.service, phone, 'POST', '/v1/me/sign-out-everywhere');
  assert.equal(res.statusCode, 204);
  for (const session of [laptop, phone]) {
    const after = await asUser(world.service, session, 'GET', '/v1/session');
    assert.equal(after.statusCode, 401);
    assert.deepStrictEqual(after.json(), { message: 'Session expired, sign in again' });
  }
});

test('a signed-in developer sends an email through the same /v1/email as a key', async (t) => {
  const world = await usersWorld(t);
  const session = await signedInUser(world, 'ana@example.org', 'developer');
  const res = await asUser(world.service, session, 'POST', '/v1/email', emailBody());
  assert.equal(res.statusCode, 200, res.body);
  const msgid = res.json().to[0].msgid;
  const shown = await asUser(world.service, session, 'GET', `/v1/messages/${msgid}`);
  assert.equal(shown.statusCode, 200);
  assert.equal(shown.json().msgid, msgid);
});

test('a viewer reads but cannot send', async (t) => {
  const world = await usersWorld(t);
  const sent = await post(world.service, '/v1/email', world.account.apiKey, emailBody());
  const msgid = sent.json().to[0].msgid;
  const viewer = await signedInUser(world, 'vi@example.org', 'viewer');
  const read = await asUser(world.service, viewer, 'GET', `/v1/messages/${msgid}`);
  assert.equal(read.statusCode, 200);
  const res = await asUser(world.service, viewer, 'POST', '/v1/email', emailBody());
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'API key not authorized.' });
});

test('the session answers what the account\'s IP allow-list refuses with the spec\'s 403', async (t) => {
  const world = await usersWorld(t);
  const session = await signedInUser(world, 'ana@example.org', 'owner');
  const patched = await world.service.http.inject({
    method: 'PATCH', url: `/admin/v1/accounts/${world.account.id}`,
    headers: { authorization: 'Bearer test-admin-token-0123456789', 'content-type': 'application/json' }, payload: JSON.stringify({ ipAllowList: ['10.0.0.0/8'] }),
  });
  assert.equal(patched.statusCode, 200, patched.body);
  const res = await asUser(world.service, session, 'GET', '/v1/session');
  assert.equal(res.statusCode, 403);
  assert.deepStrictEqual(res.json(), { error: 'IP Not Allowed ' });
});

