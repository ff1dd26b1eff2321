// /v1/users over HTTP: an owner invites, lists, changes roles and removes; the changes
// apply to the next request of the user concerned; another account's users answer 404.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emailBody, keyWithScopes, openAccount, UUID } from '../support/service.ts';
import { asUser, publicPost, sessionOf, signedInUser, signIn, T0, tokenOf, usersWorld, PASSWORD } from '../support/users.ts';

const HOUR = 3_600_000;

test('an owner invites a user and the link signs them in with the role given', async (t) => {
  const world = await usersWorld(t);
  const owner = await signedInUser(world, 'ana@example.org', 'owner');
  const res = await asUser(world.service, owner, 'POST', '/v1/users', { email: 'bo@example.org', role: 'developer' });
  assert.equal(res.statusCode, 201);
  const body = res.json();
  assert.match(body.user_id, UUID);
  assert.deepStrictEqual(body, {
    user_id: body.user_id, email: 'bo@example.org', role: 'developer', status: 'invited',
    invitation_url: body.invitation_url, invitation_expires_at: new Date(T0 + 72 * HOUR).toISOString(), email_sent: false,
  });
  const accepted = await publicPost(world.service, '/v1/auth/invitation/accept', { token: tokenOf(body.invitation_url), password: PASSWORD });
  assert.equal(accepted.statusCode, 200);
  assert.deepStrictEqual(accepted.json().user, { user_id: body.user_id, email: 'bo@example.org', role: 'developer', totp_enabled: false, locale: null });
});

test('the user list shows each user\'s state, last sign-in and live sessions', async (t) => {
  const world = await usersWorld(t);
  const owner = await signedInUser(world, 'ana@example.org', 'owner');
  world.clock.now += 60_000;
  sessionOf(await signIn(world.service, 'ana@example.org'));
  const invited = await asUser(world.service, owner, 'POST', '/v1/users', { email: 'bo@example.org', role: 'viewer' });
  const res = await asUser(world.service, owner, 'GET', '/v1/users');
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), {
    users: [
      {
        user_id: owner.userId, email: 'ana@example.org', role: 'owner', status: 'active', totp_enabled: false,
        created_at: new Date(T0).toISOString(), last_sign_in_at: new Date(T0 + 60_000).toISOString(), active_sessions: 2,
      },
      {
        user_id: invited.json().user_id, email: 'bo@example.org', role: 'viewer', status: 'invited', totp_enabled: false,
        created_at: new Date(T0 + 60_000).toISOString(), last_sign_in_at: null, active_sessions: 0,
      },
    ],
  });
});

test('inviting an address that already signs in to this account is refused', async (t) => {
  const world = await usersWorld(t);
  const owner = await signedInUser(world, 'ana@example.org', 'owner');
  const res = await asUser(world.service, owner, 'POST', '/v1/users', { email: 'ANA@example.org', role: 'viewer' });
  assert.equal(res.statusCode, 409);
  assert.deepStrictEqual(res.json(), { message: 'A user with this email already exists' });
});

test('inviting an address that signs in to another account is answered as for any address; the invitee learns at acceptance', async (t) => {
  const world = await usersWorld(t);
  const owner = await signedInUser(world, 'ana@example.org', 'owner');
  const other = await openAccount(world.service, { name: 'globex' });
  await signedInUser(world, 'cy@example.org', 'owner', other.id);
  const known = await asUser(world.service, owner, 'POST', '/v1/users', { email: 'CY@example.org', role: 'viewer' });
  const unknown = await asUser(world.service, owner, 'POST', '/v1/users', { email: 'dee@example.org', role: 'viewer' });
  assert.equal(known.statusCode, 201);
  assert.equal(unknown.statusCode, 201);
  // The same answer but for the user's id, address and link.
  const blanked = (body: Record<string, unknown>) => ({ ...body, user_id: '', invitation_url: '', email: '' });
  assert.deepStrictEqual(blanked(known.json<Record<string, unknown>>()), blanked(unknown.json<Record<string, unknown>>()));
  const accepted = await publicPost(world.service, '/v1/auth/invitation/accept', { token: tokenOf(known.json().invitation_url), password: PASSWORD });
  assert.equal(accepted.statusCode, 409);
  assert.deepStrictEqual(accepted.json(), { message: 'This address already signs in to herald: ask for an invitation to another address' });
  // cy still signs in to globex, with the password they had.
  assert.equal((await signIn(world.service, 'cy@example.org')).json().account.name, 'globex');
});

test('a pending invitation holds nothing: two accounts invite one address, the first accepted wins', async (t) => {
  const world = await usersWorld(t);
  const owner = await signedInUser(world, 'ana@example.org', 'owner');
  const other = await openAccount(world.service, { name: 'globex' });
  const globexOwner = await signedInUser(world, 'cy@example.org', 'owner', other.id);
  const here = await asUser(world.service, owner, 'POST', '/v1/users', { email: 'dee@example.org', role: 'viewer' });
  const there = await asUser(world.service, globexOwner, 'POST', '/v1/users', { email: 'dee@example.org', role: 'developer' });
  assert.equal(here.statusCode, 201);
  assert.equal(there.statusCode, 201);
  const first = await publicPost(world.service, '/v1/auth/invitation/accept', { token: tokenOf(there.json().invitation_url), password: PASSWORD });
  assert.equal(first.statusCode, 200);
  assert.equal(first.json().account.name, 'globex');
  const second = await publicPost(world.service, '/v1/auth/invitation/accept', { token: tokenOf(here.json().invitation_url), password: PASSWORD });
  assert.equal(second.statusCode, 409);
});

test('inviting again a user who has not accepted makes a new link and voids the old one', async (t) => {
  const world = await usersWorld(t);
  const owner = await signedInUser(world, 'ana@example.org', 'owner');
  const first = await asUser(world.service, owner, 'POST', '/v1/users', { email: 'bo@example.org', role: 'viewer' });
  const second = await asUser(world.service, owner, 'POST', '/v1/users', { email: 'bo@example.org', role: 'developer' });
  assert.equal(second.statusCode, 201);
  assert.equal(second.json().user_id, first.json().user_id);
  assert.equal(second.json().role, 'developer');
  const old = await publicPost(world.service, '/v1/auth/invitation', { token: tokenOf(first.json().invitation_url) });
  assert.equal(old.statusCode, 404);
  const fresh = await publicPost(world.service, '/v1/auth/invitation', { token: tokenOf(second.json().invitation_url) });
  assert.equal(fresh.statusCode, 200);
});

test('an invalid address or role is refused with the field named', async (t) => {
  const world = await usersWorld(t);
  const owner = await signedInUser(world, 'ana@example.org', 'owner');
  const address = await asUser(world.service, owner, 'POST', '/v1/users', { email: 'not an address', role: 'viewer' });
  assert.equal(address.statusCode, 400);
  assert.deepStrictEqual(address.json(), { message: 'Invalid request, a field has the wrong type or value', detail: 'email must be an email address' });
  const role = await asUser(world.service, owner, 'POST', '/v1/users', { email: 'bo@example.org', role: 'admin' });
  assert.equal(role.statusCode, 400);
  assert.equal(role.json().message, 'Invalid request, a field has the wrong type or value');
  assert.match(role.json().detail, /^role /);
});

test('a developer cannot manage users', async (t) => {
  const world = await usersWorld(t);
  await signedInUser(world, 'ana@example.org', 'owner');
  const developer = await signedInUser(world, 'bo@example.org', 'developer');
  for (const [method, url, body] of [['GET', '/v1/users', undefined], ['POST', '/v1/users', { email: 'x@example.org', role: 'owner' }]] as const) {
    const res = await asUser(world.service, developer, method, url, body);
    assert.equal(res.statusCode, 401);
    assert.deepStrictEqual(res.json(), { message: 'API key not authorized.' });
  }
});

test('a role change applies to the user\'s next request', async (t) => {
  const world = await usersWorld(t);
  const owner = await signedInUser(world, 'ana@example.org', 'owner');
  const bo = await signedInUser(world, 'bo@example.org', 'developer');
  assert.equal((await asUser(world.service, bo, 'POST', '/v1/email', emailBody())).statusCode, 200);
  const changed = await asUser(world.service, owner, 'PATCH', `/v1/users/${bo.userId}`, { role: 'viewer' });
  assert.equal(changed.statusCode, 200);
  assert.deepStrictEqual(changed.json(), {
    user_id: bo.userId, email: 'bo@example.org', role: 'viewer', status: 'active', totp_enabled: false,
    created_at: new Date(T0).toISOString(), last_sign_in_at: new Date(T0).toISOString(), active_sessions: 1,
  });
  const refused = await asUser(world.service, bo, 'POST', '/v1/email', emailBody());
  assert.equal(refused.statusCode, 401);
  assert.deepStrictEqual(refused.json(), { message: 'API key not authorized.' });
  assert.equal((await asUser(world.service, bo, 'GET', '/v1/session')).json().user.role, 'viewer');
});

test('a removed user\'s session is dead at once', async (t) => {
  const world = await usersWorld(t);
  const owner = await signedInUser(world, 'ana@example.org', 'owner');
  const bo = await signedInUser(world, 'bo@example.org', 'developer');
  const removed = await asUser(world.service, owner, 'DELETE', `/v1/users/${bo.userId}`);
  assert.equal(removed.statusCode, 204);
  const res = await asUser(world.service, bo, 'GET', '/v1/session');
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'Session expired, sign in again' });
  const again = await signIn(world.service, 'bo@example.org');
  assert.equal(again.statusCode, 401);
});

test('the last owner who can sign in can be neither removed nor demoted', async (t) => {
  const world = await usersWorld(t);
  const owner = await signedInUser(world, 'ana@example.org', 'owner');
  for (const [method, body] of [['DELETE', undefined], ['PATCH', { role: 'developer' }]] as const) {
    const res = await asUser(world.service, owner, method, `/v1/users/${owner.userId}`, body);
    assert.equal(res.statusCode, 409);
    assert.deepStrictEqual(res.json(), { message: 'The account must keep an owner who can sign in' });
  }
  const second = await signedInUser(world, 'bo@example.org', 'owner');
  const demoted = await asUser(world.service, owner, 'PATCH', `/v1/users/${second.userId}`, { role: 'viewer' });
  assert.equal(demoted.statusCode, 200);
});

test('another account\'s user ids and message ids answer 404', async (t) => {
  const world = await usersWorld(t);
  const owner = await signedInUser(world, 'ana@example.org', 'owner');
  const globex = await openAccount(world.service, { name: 'globex' });
  const stranger = await signedInUser(world, 'cy@example.org', 'developer', globex.id);
  const sent = await asUser(world.service, stranger, 'POST', '/v1/email', emailBody());
  const msgid = sent.json().to[0].msgid;
  for (const [method, url, body] of [
    ['PATCH', `/v1/users/${stranger.userId}`, { role: 'viewer' }],
    ['DELETE', `/v1/users/${stranger.userId}`, undefined],
    ['GET', `/v1/messages/${msgid}`, undefined],
  ] as const) {
    const res = await asUser(world.service, owner, method, url, body);
    assert.equal(res.statusCode, 404, `${method} ${url}`);
    assert.deepStrictEqual(res.json(), { message: 'Not found' });
  }
  assert.equal((await asUser(world.service, stranger, 'GET', '/v1/session')).json().user.role, 'developer');
});

test('a key with the account scope manages users; a key without it does not', async (t) => {
  const world = await usersWorld(t);
  const emailOnly = await keyWithScopes(world.service, world.account.id, ['email']);
  const refused = await world.service.http.inject({ method: 'GET', url: '/v1/users', headers: { authorization: `Bearer ${emailOnly}` } });
  assert.equal(refused.statusCode, 401);
  assert.deepStrictEqual(refused.json(), { message: 'API key not authorized.' });
  const res = await world.service.http.inject({
    method: 'POST', url: '/v1/users', headers: { authorization: `Bearer ${world.account.apiKey}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ email: 'bo@example.org', role: 'owner' }),
  });
  assert.equal(res.statusCode, 201);
});
