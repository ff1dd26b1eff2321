// Invitations throttled per account and per address within it (each may send an email
// from herald's own sender), and the role rule of key revocation, the creation rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AttemptLimits } from '../../src/http/plugins/attempt-throttle.ts';
import { issueKey } from '../support/service.ts';
import { serviceEmails } from '../support/service-email.ts';
import { asUser, signedInUser, usersWorld } from '../support/users.ts';

const SENDER = { HERALD_AUTH_EMAIL_FROM: 'Acme Sign-in <signin@acme.example>', HERALD_PUBLIC_URL: 'https://herald.example.com' };
const INVITATIONS_THROTTLED = { message: 'Too many invitations, try again later' };

test('30 invitations of one outside address: a few are sent, the rest refused with Retry-After, and counted', async (t) => {
  // The user's own request rate (20 a second by default) is not what this test is about.
  const world = await usersWorld(t, { env: { ...SENDER, HERALD_SESSION_RATE_LIMIT: '1000' } });
  const owner = await signedInUser(world, 'ana@example.org', 'owner');
  const before = (await serviceEmails(world.service)).length;
  const answers = [];
  for (let i = 0; i < 30; i++) answers.push(await asUser(world.service, owner, 'POST', '/v1/users', { email: 'victim@example.net', role: 'viewer' }));
  const made = answers.filter((res) => res.statusCode === 201);
  // Three free, and one more that won its turn (the next waits 2 s, then 4 s…).
  assert.ok(made.length >= 3 && made.length <= 4, `${made.length} invitations made`);
  for (const res of made) assert.equal(res.json().email_sent, true);
  for (const res of answers.filter((r) => r.statusCode !== 201)) {
    assert.equal(res.statusCode, 429);
    assert.deepStrictEqual(res.json(), INVITATIONS_THROTTLED);
    assert.ok(Number(res.headers['retry-after']) >= 1);
  }
  const sent = (await serviceEmails(world.service)).slice(before).filter((e) => e.recipient === 'victim@example.net');
  assert.equal(sent.length, made.length);
  const metrics = await world.service.deps.metrics.scrape();
  assert.match(metrics, new RegExp(`herald_invitations_total\\{outcome="throttled"\\} ${30 - made.length}\\n`));
});

test('an account\'s invitations are counted together, whatever the address', async (t) => {
  const world = await usersWorld(t, { attemptLimits: { inviteAccount: { free: 3, firstDelaySeconds: 60, maxDelaySeconds: 3600, windowSeconds: 86_400 } } satisfies Partial<AttemptLimits> });
  const owner = await signedInUser(world, 'ana@example.org', 'owner');
  const codes = [];
  for (let i = 0; i < 6; i++) codes.push((await asUser(world.service, owner, 'POST', '/v1/users', { email: `user${i}@example.org`, role: 'viewer' })).statusCode);
  // The operator's invitation of ana does not count: only the account's own.
  assert.deepStrictEqual(codes, [201, 201, 201, 201, 429, 429]);
});

test('an invitation answer says no email was sent when herald has no sender', async (t) => {
  const world = await usersWorld(t);
  const owner = await signedInUser(world, 'ana@example.org', 'owner');
  const res = await asUser(world.service, owner, 'POST', '/v1/users', { email: 'bo@example.org', role: 'viewer' });
  assert.equal(res.statusCode, 201);
  assert.equal(res.json().email_sent, false);
});

test('a developer cannot revoke a key with the account scope, which only an owner may make', async (t) => {
  const world = await usersWorld(t);
  const owner = await signedInUser(world, 'ana@example.org', 'owner');
  const developer = await signedInUser(world, 'bo@example.org', 'developer');
  const ownerKey = await issueKey(world.service, world.account.id, ['email', 'account']);
  const emailKey = await issueKey(world.service, world.account.id, ['email']);
  const refused = await asUser(world.service, developer, 'DELETE', `/v1/api-keys/${ownerKey.id}`);
  assert.equal(refused.statusCode, 401);
  assert.deepStrictEqual(refused.json(), { message: 'API key not authorized.' });
  assert.equal((await asUser(world.service, developer, 'DELETE', `/v1/api-keys/${emailKey.id}`)).statusCode, 204);
  assert.equal((await asUser(world.service, owner, 'DELETE', `/v1/api-keys/${ownerKey.id}`)).statusCode, 204);
});
