// Inviting again a person who has not accepted keeps their role unless one is given on
// purpose (issue 24): a second invitation never changes it by accident.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_TOKEN, openAccount } from '../support/service.ts';
import { asUser, signedInUser, usersWorld } from '../support/users.ts';

test('inviting again without a role keeps the role of the first invitation', async (t) => {
  const world = await usersWorld(t);
  const owner = await signedInUser(world, 'ana@example.org', 'owner');
  await asUser(world.service, owner, 'POST', '/v1/users', { email: 'bo@example.org', role: 'viewer' });
  const again = await asUser(world.service, owner, 'POST', '/v1/users', { email: 'bo@example.org' });
  assert.equal(again.statusCode, 201);
  assert.equal(again.json().role, 'viewer');
  const list = await asUser(world.service, owner, 'GET', '/v1/users');
  assert.equal(list.json().users.find((u: { email: string }) => u.email === 'bo@example.org').role, 'viewer');
});

test('inviting again with a role changes it, on purpose', async (t) => {
  const world = await usersWorld(t);
  const owner = await signedInUser(world, 'ana@example.org', 'owner');
  await asUser(world.service, owner, 'POST', '/v1/users', { email: 'bo@example.org', role: 'viewer' });
  const again = await asUser(world.service, owner, 'POST', '/v1/users', { email: 'bo@example.org', role: 'developer' });
  assert.equal(again.json().role, 'developer');
});

test('inviting someone new without a role is refused with the field named', async (t) => {
  const world = await usersWorld(t);
  const owner = await signedInUser(world, 'ana@example.org', 'owner');
  const res = await asUser(world.service, owner, 'POST', '/v1/users', { email: 'bo@example.org' });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), {
    message: 'Invalid request, a field has the wrong type or value', detail: 'role must be one of: owner, developer, viewer, to invite someone new',
  });
});

test('the operator inviting again without a role keeps it too', async (t) => {
  const world = await usersWorld(t);
  const account = await openAccount(world.service, { name: 'Second' });
  const invite = (body: object) => world.service.http.inject({
    method: 'POST', url: `/admin/v1/accounts/${account.id}/users`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: body,
  });
  await invite({ email: 'cy@example.org', role: 'owner' });
  const again = await invite({ email: 'cy@example.org' });
  assert.equal(again.statusCode, 201);
  assert.equal(again.json().role, 'owner');
});
