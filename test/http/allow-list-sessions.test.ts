// The IP allow-list and the web application (issue 19, item 6): a person cannot save a
// list that shuts their own address out of the application unless it binds keys only
// (`allow_list_applies_to: "keys"`), and a keys-only list lets sessions in from anywhere
// while keys stay bound. Exact answers over app.inject, from chosen client addresses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { Service } from '../../src/service.ts';
import { ADMIN_TOKEN } from '../support/service.ts';
import { signedInUser, usersWorld, type BrowserSession } from '../support/users.ts';

const HOME = '203.0.113.9';
const OFFICE = '198.51.100.7';
const INVALID = 'Invalid request, a field has the wrong type or value';
const IP_NOT_ALLOWED = { error: 'IP Not Allowed ' };

/** A request of the web application from `remoteAddress`: the cookie, and the CSRF token on changes. */
function fromAddress(service: Service, session: BrowserSession, remoteAddress: string, method: 'GET' | 'PATCH', body?: unknown): Promise<LightMyRequestResponse> {
  return service.http.inject({
    method, url: '/v1/account', remoteAddress, cookies: { herald_session: session.cookie },
    headers: method === 'GET' ? {} : { 'content-type': 'application/json', 'x-csrf-token': session.csrf },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

function withKey(service: Service, apiKey: string, remoteAddress: string): Promise<LightMyRequestResponse> {
  return service.http.inject({ method: 'GET', url: '/v1/account', remoteAddress, headers: { authorization: `Bearer ${apiKey}` } });
}

const adminHeaders = () => ({ authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' });

const answer = (res: LightMyRequestResponse) => ({ status: res.statusCode, body: res.json() });
const settingsOf = (res: LightMyRequestResponse) => {
  const body = res.json();
  return { ip_allow_list: body.ip_allow_list, allow_list_applies_to: body.allow_list_applies_to };
};

test('a new account\'s allow-list binds keys and sessions alike', async (t) => {
  const world = await usersWorld(t);
  const owner = await signedInUser(world, 'owner@acme.test', 'owner');
  assert.deepStrictEqual(settingsOf(await fromAddress(world.service, owner, HOME, 'GET')), { ip_allow_list: [], allow_list_applies_to: 'all' });
});

test('a person saving a list that leaves out their own address is refused with 409 naming it, and nothing changes', async (t) => {
  const world = await usersWorld(t);
  const owner = await signedInUser(world, 'owner@acme.test', 'owner');
  const res = await fromAddress(world.service, owner, HOME, 'PATCH', { ip_allow_list: ['198.51.100.0/24'] });
  assert.deepStrictEqual(answer(res), {
    status: 409,
    body: {
      message: 'The IP allow-list would lock you out',
      detail: 'ip_allow_list: does not include your address 203.0.113.9, and the list applies to sessions too; add 203.0.113.9 to the list, or set allow_list_applies_to to "keys" so that it binds API keys only',
    },
  });
  assert.deepStrictEqual(settingsOf(await fromAddress(world.service, owner, HOME, 'GET')), { ip_allow_list: [], allow_list_applies_to: 'all' });
});

test('the same list with the person\'s own address added is saved, and the person stays in', async (t) => {
  const world = await usersWorld(t);
  const owner = await signedInUser(world, 'owner@acme.test', 'owner');
  const res = await fromAddress(world.service, owner, HOME, 'PATCH', { ip_allow_list: ['198.51.100.0/24', HOME] });
  assert.deepStrictEqual([res.statusCode, settingsOf(res)], [200, { ip_allow_list: ['198.51.100.0/24', HOME], allow_list_applies_to: 'all' }]);
  assert.equal((await fromAddress(world.service, owner, HOME, 'GET')).statusCode, 200);
  // Sessions obey the list: from elsewhere the same person is refused.
  assert.deepStrictEqual(answer(await fromAddress(world.service, owner, '192.0.2.50', 'GET')), { status: 403, body: IP_NOT_ALLOWED });
});

test('a list that binds keys only is saved from anywhere; sessions come in from anywhere while keys stay bound', async (t) => {
  const world = await usersWorld(t);
  const owner = await signedInUser(world, 'owner@acme.test', 'owner');
  const res = await fromAddress(world.service, owner, HOME, 'PATCH', { ip_allow_list: ['198.51.100.0/24'], allow_list_applies_to: 'keys' });
  assert.deepStrictEqual([res.statusCode, settingsOf(res)], [200, { ip_allow_list: ['198.51.100.0/24'], allow_list_applies_to: 'keys' }]);

  for (const address of [HOME, '192.0.2.50', '2001:db8::9']) {
    assert.equal((await fromAddress(world.service, owner, address, 'GET')).statusCode, 200, address);
  }
  assert.deepStrictEqual(answer(await withKey(world.service, world.account.apiKey, HOME)), { status: 403, body: IP_NOT_ALLOWED });
  assert.equal((await withKey(world.service, world.account.apiKey, OFFICE)).statusCode, 200);
});

test('turning a list that leaves the person out from keys-only to everyone is refused like saving it', async (t) => {
  const world = await usersWorld(t);
  const owner = await signedInUser(world, 'owner@acme.test', 'owner');
  await fromAddress(world.service, owner, HOME, 'PATCH', { ip_allow_list: ['198.51.100.0/24'], allow_list_applies_to: 'keys' });
  const res = await fromAddress(world.service, owner, HOME, 'PATCH', { allow_list_applies_to: 'all' });
  assert.equal(res.statusCode, 409);
  assert.equal(res.json().message, 'The IP allow-list would lock you out');
  assert.deepStrictEqual(settingsOf(await fromAddress(world.service, owner, HOME, 'GET')), { ip_allow_list: ['198.51.100.0/24'], allow_list_applies_to: 'keys' });
  // From inside the list the same change is the person's own choice.
  const inside = await fromAddress(world.service, owner, OFFICE, 'PATCH', { allow_list_applies_to: 'all' });
  assert.deepStrictEqual([inside.statusCode, settingsOf(inside)], [200, { ip_allow_list: ['198.51.100.0/24'], allow_list_applies_to: 'all' }]);
});

test('an empty list is always saved: it lets every address in', async (t) => {
  const world = await usersWorld(t);
  const owner = await signedInUser(world, 'owner@acme.test', 'owner');
  const res = await fromAddress(world.service, owner, HOME, 'PATCH', { ip_allow_list: [], allow_list_applies_to: 'all' });
  assert.deepStrictEqual([res.statusCode, settingsOf(res)], [200, { ip_allow_list: [], allow_list_applies_to: 'all' }]);
});

test('allow_list_applies_to other than keys or all is refused naming the field', async (t) => {
  const world = await usersWorld(t);
  const owner = await signedInUser(world, 'owner@acme.test', 'owner');
  assert.deepStrictEqual(answer(await fromAddress(world.service, owner, HOME, 'PATCH', { allow_list_applies_to: 'sessions' })), {
    status: 400, body: { message: INVALID, detail: 'allow_list_applies_to: must be "keys" or "all"' },
  });
});

test('an API key saves a list without its own address as before: keys are bound on purpose', async (t) => {
  const world = await usersWorld(t);
  const res = await world.service.http.inject({
    method: 'PATCH', url: '/v1/account', remoteAddress: HOME,
    headers: { authorization: `Bearer ${world.account.apiKey}`, 'content-type': 'application/json' }, payload: JSON.stringify({ ip_allow_list: ['198.51.100.0/24'] }),
  });
  assert.deepStrictEqual([res.statusCode, settingsOf(res)], [200, { ip_allow_list: ['198.51.100.0/24'], allow_list_applies_to: 'all' }]);
});

test('an account locked out of the application is let in again by the operator setting the list to bind keys only', async (t) => {
  const world = await usersWorld(t);
  const owner = await signedInUser(world, 'owner@acme.test', 'owner');
  const locked = await world.service.http.inject({
    method: 'PATCH', url: `/admin/v1/accounts/${world.account.id}`,
    headers: adminHeaders(), payload: JSON.stringify({ ipAllowList: [OFFICE] }),
  });
  assert.equal(locked.statusCode, 200, locked.body);
  assert.deepStrictEqual(answer(await fromAddress(world.service, owner, HOME, 'GET')), { status: 403, body: IP_NOT_ALLOWED });

  const freed = await world.service.http.inject({
    method: 'PATCH', url: `/admin/v1/accounts/${world.account.id}`,
    headers: adminHeaders(), payload: JSON.stringify({ allowListAppliesTo: 'keys' }),
  });
  assert.deepStrictEqual([freed.statusCode, freed.json().ipAllowList, freed.json().allowListAppliesTo], [200, [OFFICE], 'keys']);
  assert.equal((await fromAddress(world.service, owner, HOME, 'GET')).statusCode, 200);
  assert.deepStrictEqual(answer(await withKey(world.service, world.account.apiKey, HOME)), { status: 403, body: IP_NOT_ALLOWED });
});
