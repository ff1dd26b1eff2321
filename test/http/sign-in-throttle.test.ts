// Sign-in attempts slowed per address and per client IP (limits lowered for the test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { publicPost, signedInUser, usersWorld, PASSWORD } from '../support/users.ts';

const LIMITS = { perAddress: 3, perIp: 5, windowSeconds: 900 };
const THROTTLED = { message: 'Too many sign-in attempts, try again later' };
const attempt = (world: { service: Parameters<typeof publicPost>[0] }, email: string, password: string, ip: string) =>
  publicPost(world.service, '/v1/auth/sign-in', { email, password }, ip);

test('after the failures allowed for an address, even the right password waits', async (t) => {
  const world = await usersWorld(t, { signInLimits: LIMITS });
  await signedInUser(world, 'ana@example.org', 'owner');
  for (let i = 0; i < 3; i++) assert.equal((await attempt(world, 'ana@example.org', `wrong password ${i}!`, '198.51.100.1')).statusCode, 401);
  const res = await attempt(world, 'ana@example.org', PASSWORD, '198.51.100.2');
  assert.equal(res.statusCode, 429);
  assert.deepStrictEqual(res.json(), THROTTLED);
  // The window runs from the first failure, on the real clock: up to 900 s are left.
  const retryAfter = Number(res.headers['retry-after']);
  assert.ok(retryAfter > 0 && retryAfter <= 900, String(res.headers['retry-after']));
});

test('after the failures allowed for an IP, another address from it waits too', async (t) => {
  const world = await usersWorld(t, { signInLimits: LIMITS });
  await signedInUser(world, 'ana@example.org', 'owner');
  for (let i = 0; i < 5; i++) assert.equal((await attempt(world, `guess${i}@example.org`, 'some long guess here', '198.51.100.7')).statusCode, 401);
  const res = await attempt(world, 'ana@example.org', PASSWORD, '198.51.100.7');
  assert.equal(res.statusCode, 429);
  assert.deepStrictEqual(res.json(), THROTTLED);
  assert.equal((await attempt(world, 'ana@example.org', PASSWORD, '198.51.100.8')).statusCode, 200);
});

test('a successful sign-in clears the address\'s failures', async (t) => {
  const world = await usersWorld(t, { signInLimits: LIMITS });
  await signedInUser(world, 'ana@example.org', 'owner');
  for (let i = 0; i < 2; i++) await attempt(world, 'ana@example.org', `wrong password ${i}!`, '198.51.100.1');
  assert.equal((await attempt(world, 'ana@example.org', PASSWORD, '198.51.100.1')).statusCode, 200);
  for (let i = 0; i < 2; i++) await attempt(world, 'ana@example.org', `wrong password ${i}!`, '198.51.100.2');
  assert.equal((await attempt(world, 'ana@example.org', PASSWORD, '198.51.100.3')).statusCode, 200);
});

const REDIS_URL = process.env.TEST_REDIS_URL;

test('with Redis, failures counted by one API process slow the address in another', { skip: REDIS_URL === undefined || REDIS_URL === '' ? 'TEST_REDIS_URL is not set' : false }, async (t) => {
  const env = { HERALD_REDIS_URL: REDIS_URL ?? '', HERALD_REDIS_PREFIX: `herald-test-${randomUUID()}:` };
  const first = await usersWorld(t, { signInLimits: LIMITS, env });
  const second = await usersWorld(t, { signInLimits: LIMITS, env });
  for (let i = 0; i < 3; i++) assert.equal((await attempt(first, 'ana@example.org', `wrong password ${i}!`, '198.51.100.1')).statusCode, 401);
  const res = await attempt(second, 'ana@example.org', 'any long password', '198.51.100.2');
  assert.equal(res.statusCode, 429);
  assert.deepStrictEqual(res.json(), THROTTLED);
});
