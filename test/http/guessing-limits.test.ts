// The checks one could guess at besides sign-in, each slowed the same way: two-factor
// codes (sign-in's second step, DELETE /v1/me/totp), the current password, the admin
// token (console sign-in and bearer header), and password-reset requests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import type { LightMyRequestResponse } from 'fastify';
import type { AttemptLimits } from '../../src/http/plugins/attempt-throttle.ts';
import type { Service } from '../../src/service.ts';
import { ADMIN_TOKEN, startService } from '../support/service.ts';
import { asUser, publicPost, signedInUser, signIn, usersWorld, PASSWORD, type BrowserSession, type UsersWorld } from '../support/users.ts';

const ATTEMPTS_THROTTLED = { message: 'Too many attempts, try again later' };
// Turns held a minute (2 s by default), so that a test's own pace, password hashes on a busy machine included, cannot outlast them.
const ladder = (free: number) => ({ free, firstDelaySeconds: 60, maxDelaySeconds: 900, windowSeconds: 3600 });

const codeAt = (secret: string, now: number): string =>
  new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: now });
const wrongCodeAt = (secret: string, now: number): string => String((Number(codeAt(secret, now)) + 1) % 1_000_000).padStart(6, '0');

async function enrolled(world: UsersWorld): Promise<{ session: BrowserSession; secret: string }> {
  const session = await signedInUser(world, 'ana@example.org', 'owner');
  const { secret } = (await asUser(world.service, session, 'POST', '/v1/me/totp')).json();
  assert.equal((await asUser(world.service, session, 'POST', '/v1/me/totp/confirm', { code: codeAt(secret, world.clock.now) })).statusCode, 204);
  world.clock.now += 30_000;
  return { session, secret };
}

function assertWaits(res: LightMyRequestResponse, body: unknown = ATTEMPTS_THROTTLED): void {
  assert.equal(res.statusCode, 429);
  assert.deepStrictEqual(res.json(), body);
  assert.ok(Number(res.headers['retry-after']) >= 1, String(res.headers['retry-after']));
}

test('wrong codes to turn the second factor off wait their turn, and the right one is not checked meanwhile', async (t) => {
  const world = await usersWorld(t, { attemptLimits: { totp: ladder(3) } satisfies Partial<AttemptLimits> });
  const { session, secret } = await enrolled(world);
  const answers = await Promise.all(Array.from({ length: 10 }, () => asUser(world.service, session, 'DELETE', '/v1/me/totp', { code: wrongCodeAt(secret, world.clock.now) })));
  // Three free tries and one that won the gate reach the check (10 at once: the session's own rate limit is 20 a second).
  assert.ok(answers.filter((res) => res.statusCode === 401).length <= 4);
  assertWaits(await asUser(world.service, session, 'DELETE', '/v1/me/totp', { code: codeAt(secret, world.clock.now) }));
  assert.equal((await asUser(world.service, session, 'GET', '/v1/session')).json().user.totp_enabled, true);
});

test('sign-in\'s second step counts wrong codes per user, whatever the IP', async (t) => {
  const world = await usersWorld(t, { attemptLimits: { totp: ladder(2) } satisfies Partial<AttemptLimits> });
  const { secret } = await enrolled(world);
  for (const ip of ['203.0.113.1', '203.0.113.2']) {
    const res = await publicPost(world.service, '/v1/auth/sign-in', { email: 'ana@example.org', password: PASSWORD, totp_code: wrongCodeAt(secret, world.clock.now) }, ip);
    assert.deepStrictEqual(res.json(), { message: 'Incorrect two-factor code' });
  }
  await publicPost(world.service, '/v1/auth/sign-in', { email: 'ana@example.org', password: PASSWORD, totp_code: wrongCodeAt(secret, world.clock.now) }, '203.0.113.3');
  const res = await publicPost(world.service, '/v1/auth/sign-in', { email: 'ana@example.org', password: PASSWORD, totp_code: codeAt(secret, world.clock.now) }, '203.0.113.4');
  assertWaits(res, { message: 'Too many sign-in attempts, try again later' });
});

test('wrong current passwords wait their turn; a right one gives its try back', async (t) => {
  const world = await usersWorld(t, { attemptLimits: { currentPassword: ladder(2) } satisfies Partial<AttemptLimits> });
  const session = await signedInUser(world, 'ana@example.org', 'owner');
  const change = (current: string) => asUser(world.service, session, 'POST', '/v1/me/password', { current_password: current, new_password: 'a brand new long password' });
  assert.equal((await change('not my password at all')).statusCode, 400);
  const right = await change(PASSWORD);
  assert.equal(right.statusCode, 204);
  assert.equal((await change('not my password at all')).statusCode, 400);
  assert.deepStrictEqual((await change('still not my password')).json(), { message: 'The current password is incorrect' });
  assertWaits(await change('a brand new long password'));
});

const adminSignIn = (service: Service, token: string, ip: string) => service.http.inject({
  method: 'POST', url: '/admin/v1/session', remoteAddress: ip, headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ token }),
});
const adminGet = (service: Service, token: string, ip: string) => service.http.inject({
  method: 'GET', url: '/admin/v1/accounts', remoteAddress: ip, headers: { authorization: `Bearer ${token}` },
});

test('100 parallel wrong admin tokens: a few are compared, the rest wait', async (t) => {
  const service = await startService(t, { attemptLimits: { adminIp: ladder(5) } satisfies Partial<AttemptLimits> });
  const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => adminSignIn(service, `guess-${i}`, '203.0.113.9')));
  assert.ok(answers.filter((res) => res.statusCode === 401).length <= 6);
  for (const res of answers.filter((r) => r.statusCode !== 401)) assertWaits(res);
  // The bearer header shares the count.
  assertWaits(await adminGet(service, ADMIN_TOKEN, '203.0.113.9'));
  // The operator's own IP is untouched.
  assert.equal((await adminSignIn(service, ADMIN_TOKEN, '198.51.100.1')).statusCode, 200);
});

test('past the admin token\'s count from unknown IPs, an IP that gave the right token before still passes', async (t) => {
  const service = await startService(t, { attemptLimits: { adminIp: ladder(2), adminAny: ladder(3) } satisfies Partial<AttemptLimits> });
  assert.equal((await adminGet(service, ADMIN_TOKEN, '198.51.100.1')).statusCode, 200);
  const strangers = await Promise.all(Array.from({ length: 10 }, (_, i) => adminSignIn(service, `guess-${i}`, `203.0.113.${i + 1}`)));
  assert.ok(strangers.filter((res) => res.statusCode === 401).length <= 4);
  assertWaits(await adminGet(service, ADMIN_TOKEN, '198.51.100.2'));
  assert.equal((await adminGet(service, ADMIN_TOKEN, '198.51.100.1')).statusCode, 200);
});

test('password-reset requests for one address wait their turn past the free ones', async (t) => {
  const world = await usersWorld(t, { attemptLimits: { resetAddress: ladder(2) } satisfies Partial<AttemptLimits> });
  await signedInUser(world, 'ana@example.org', 'owner');
  const ask = (ip: string) => publicPost(world.service, '/v1/auth/password-reset', { email: 'ana@example.org' }, ip);
  for (const ip of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) assert.equal((await ask(ip)).statusCode, 202);
  assertWaits(await ask('203.0.113.4'), { message: 'Too many sign-in attempts, try again later' });
  assert.equal((await signIn(world.service, 'ana@example.org')).statusCode, 200);
});
