// Guesses slowed with progressive delays (http/plugins/attempt-throttle.ts): a try is
// taken before the check and given back only when it is right, so concurrent guesses
// cannot race past the count; a stranger's failures from other IPs never keep a user
// out of their own IP. Limits are lowered per test; the counters run on the real clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { delaySecondsOf, type AttemptLimits } from '../../src/http/plugins/attempt-throttle.ts';
import { publicPost, signedInUser, usersWorld, PASSWORD, type UsersWorld } from '../support/users.ts';

const THROTTLED = { message: 'Too many sign-in attempts, try again later' };
const WRONG = { message: 'Incorrect email or password' };
// Turns held a minute (2 s by default), so that a test's own pace, password hashes on a busy machine included, cannot outlast them.
const ladder = (free: number) => ({ free, firstDelaySeconds: 60, maxDelaySeconds: 900, windowSeconds: 3600 });
const limits = (overrides: Partial<AttemptLimits>): Partial<AttemptLimits> => overrides;

const attempt = (world: UsersWorld, email: string, password: string, ip: string): Promise<LightMyRequestResponse> =>
  publicPost(world.service, '/v1/auth/sign-in', { email, password }, ip);

test('past the free failures of an address from one IP, a try waits for its turn', async (t) => {
  const world = await usersWorld(t, { attemptLimits: limits({ signInPair: ladder(3) }) });
  await signedInUser(world, 'ana@example.org', 'owner');
  for (let i = 0; i < 3; i++) assert.equal((await attempt(world, 'ana@example.org', `wrong password ${i}!`, '198.51.100.1')).statusCode, 401);
  // The fourth try wins the turn and is checked; the fifth, right after it, waits without a check.
  assert.deepStrictEqual((await attempt(world, 'ana@example.org', 'wrong password 3!', '198.51.100.1')).json(), WRONG);
  const res = await attempt(world, 'ana@example.org', PASSWORD, '198.51.100.1');
  assert.equal(res.statusCode, 429);
  assert.deepStrictEqual(res.json(), THROTTLED);
  const retryAfter = Number(res.headers['retry-after']);
  assert.ok(retryAfter > 30 && retryAfter <= 60, String(res.headers['retry-after']));
});

test('each turn past the free tries is held twice as long as the one before, up to the cap', () => {
  const signInPair = { free: 5, firstDelaySeconds: 2, maxDelaySeconds: 900, windowSeconds: 86_400 };
  assert.deepStrictEqual([1, 2, 3, 4, 5, 9, 10, 11, 40].map((k) => delaySecondsOf(signInPair, k)), [2, 4, 8, 16, 32, 512, 900, 900, 900]);
});

test('50 parallel wrong passwords and the right one get no more tries than allowed through to a password check', async (t) => {
  const world = await usersWorld(t, { attemptLimits: limits({ signInPair: ladder(5) }) });
  await signedInUser(world, 'ana@example.org', 'owner');
  const answers = await Promise.all([
    ...Array.from({ length: 50 }, (_, i) => attempt(world, 'ana@example.org', `wrong password ${i}!`, '198.51.100.1')),
    attempt(world, 'ana@example.org', PASSWORD, '198.51.100.1'),
  ]);
  const checked = answers.filter((res) => res.statusCode !== 429);
  // The free five, and one that won the gate.
  assert.ok(checked.length <= 6, `${checked.length} tries reached the password check`);
  for (const res of answers.filter((r) => r.statusCode === 429)) {
    assert.deepStrictEqual(res.json(), THROTTLED);
    assert.ok(Number(res.headers['retry-after']) >= 1);
  }
});

test('a stranger\'s failures from other IPs do not keep the user out, even from an IP the user never used', async (t) => {
  const world = await usersWorld(t, { attemptLimits: limits({ signInPair: ladder(2) }) });
  await signedInUser(world, 'ana@example.org', 'owner');
  await Promise.all(['203.0.113.1', '203.0.113.2', '203.0.113.3'].map(async (ip) => {
    for (let i = 0; i < 4; i++) await attempt(world, 'ana@example.org', `stranger guess ${i}!`, ip);
  }));
  assert.equal((await attempt(world, 'ana@example.org', PASSWORD, '198.51.100.77')).statusCode, 200);
});

test('past the address\'s count from unknown IPs, strangers wait but the IP the user signed in from passes', async (t) => {
  const world = await usersWorld(t, { attemptLimits: limits({ signInPair: ladder(2), signInAddress: ladder(4) }) });
  await signedInUser(world, 'ana@example.org', 'owner');
  assert.equal((await attempt(world, 'ana@example.org', PASSWORD, '198.51.100.1')).statusCode, 200);
  const strangers = await Promise.all(Array.from({ length: 12 }, (_, i) => attempt(world, 'ana@example.org', `stranger guess ${i}!`, `203.0.113.${i + 1}`)));
  assert.ok(strangers.filter((res) => res.statusCode === 401).length <= 5);
  assert.ok(strangers.some((res) => res.statusCode === 429));
  // A new IP, even with the right password, waits for the address's turn; the known one does not.
  const unknownIp = await attempt(world, 'ana@example.org', PASSWORD, '198.51.100.2');
  assert.equal(unknownIp.statusCode, 429);
  assert.ok(Number(unknownIp.headers['retry-after']) > 30);
  assert.equal((await attempt(world, 'ana@example.org', PASSWORD, '198.51.100.1')).statusCode, 200);
});

test('a successful sign-in clears the failures of its address and IP', async (t) => {
  const world = await usersWorld(t, { attemptLimits: limits({ signInPair: ladder(3) }) });
  await signedInUser(world, 'ana@example.org', 'owner');
  for (let i = 0; i < 2; i++) await attempt(world, 'ana@example.org', `wrong password ${i}!`, '198.51.100.1');
  assert.equal((await attempt(world, 'ana@example.org', PASSWORD, '198.51.100.1')).statusCode, 200);
  for (let i = 0; i < 3; i++) assert.equal((await attempt(world, 'ana@example.org', `wrong password ${i}!`, '198.51.100.1')).statusCode, 401);
});

test('one IP trying many addresses is slowed, and other IPs are not', async (t) => {
  const world = await usersWorld(t, { attemptLimits: limits({ signInIp: ladder(3) }) });
  await signedInUser(world, 'ana@example.org', 'owner');
  for (let i = 0; i < 4; i++) assert.equal((await attempt(world, `guess${i}@example.org`, 'some long guess here', '198.51.100.7')).statusCode, 401);
  const res = await attempt(world, 'ana@example.org', PASSWORD, '198.51.100.7');
  assert.equal(res.statusCode, 429);
  assert.deepStrictEqual(res.json(), THROTTLED);
  assert.equal((await attempt(world, 'ana@example.org', PASSWORD, '198.51.100.8')).statusCode, 200);
});

const REDIS_URL = process.env.TEST_REDIS_URL;

test('with Redis, tries taken by one API process count in another', { skip: REDIS_URL === undefined || REDIS_URL === '' ? 'TEST_REDIS_URL is not set' : false }, async (t) => {
  const env = { HERALD_REDIS_URL: REDIS_URL ?? '', HERALD_REDIS_PREFIX: `herald-test-${randomUUID()}:` };
  const attemptLimits = limits({ signInPair: ladder(3) });
  const first = await usersWorld(t, { attemptLimits, env });
  const second = await usersWorld(t, { attemptLimits, env });
  for (let i = 0; i < 4; i++) assert.equal((await attempt(first, 'ana@example.org', `wrong password ${i}!`, '198.51.100.1')).statusCode, 401);
  const res = await attempt(second, 'ana@example.org', 'any long password', '198.51.100.1');
  assert.equal(res.statusCode, 429);
  assert.deepStrictEqual(res.json(), THROTTLED);
});
