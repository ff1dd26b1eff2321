// The optional second factor (TOTP, RFC 6238): set-up, confirmation, sign-in with a
// code, refusal of a wrong or replayed code, turning it off. Codes are made as an
// authenticator app makes them, with otpauth, at the service's clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import { asUser, signedInUser, signIn, usersWorld, type BrowserSession, type UsersWorld } from '../support/users.ts';

const codeAt = (secret: string, now: number): string =>
  new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: now });

async function enrolled(world: UsersWorld): Promise<{ session: BrowserSession; secret: string }> {
  const session = await signedInUser(world, 'ana@example.org', 'owner');
  const setup = await asUser(world.service, session, 'POST', '/v1/me/totp');
  const { secret } = setup.json();
  const confirmed = await asUser(world.service, session, 'POST', '/v1/me/totp/confirm', { code: codeAt(secret, world.clock.now) });
  assert.equal(confirmed.statusCode, 204, confirmed.body);
  world.clock.now += 30_000;
  return { session, secret };
}

test('set-up answers a base32 secret and its otpauth URL', async (t) => {
  const world = await usersWorld(t);
  const session = await signedInUser(world, 'ana@example.org', 'owner');
  const res = await asUser(world.service, session, 'POST', '/v1/me/totp');
  assert.equal(res.statusCode, 200);
  const { secret } = res.json();
  assert.match(secret, /^[A-Z2-7]{32}$/);
  assert.deepStrictEqual(res.json(), {
    secret, otpauth_url: `otpauth://totp/herald:ana%40example.org?issuer=herald&secret=${secret}&algorithm=SHA1&digits=6&period=30`,
  });
});

test('a wrong code does not turn the second factor on', async (t) => {
  const world = await usersWorld(t);
  const session = await signedInUser(world, 'ana@example.org', 'owner');
  const { secret } = (await asUser(world.service, session, 'POST', '/v1/me/totp')).json();
  const wrong = String((Number(codeAt(secret, world.clock.now)) + 1) % 1_000_000).padStart(6, '0');
  const res = await asUser(world.service, session, 'POST', '/v1/me/totp/confirm', { code: wrong });
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'Incorrect two-factor code' });
  assert.equal((await asUser(world.service, session, 'GET', '/v1/session')).json().user.totp_enabled, false);
});

test('with the second factor on, sign-in without a code asks for it', async (t) => {
  const world = await usersWorld(t);
  const { session } = await enrolled(world);
  assert.equal((await asUser(world.service, session, 'GET', '/v1/session')).json().user.totp_enabled, true);
  const res = await signIn(world.service, 'ana@example.org');
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'Two-factor code required', totp_required: true });
  assert.equal(res.headers['set-cookie'], undefined);
});

test('a wrong password with the second factor on says nothing about the factor', async (t) => {
  const world = await usersWorld(t);
  await enrolled(world);
  const res = await signIn(world.service, 'ana@example.org', 'not the password at all');
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'Incorrect email or password' });
});

test('sign-in with the current code succeeds, and the same code is not accepted twice', async (t) => {
  const world = await usersWorld(t);
  const { secret } = await enrolled(world);
  const code = codeAt(secret, world.clock.now);
  const res = await signIn(world.service, 'ana@example.org', undefined, { totp_code: code });
  assert.equal(res.statusCode, 200);
  assert.equal(res.json().user.totp_enabled, true);
  const replay = await signIn(world.service, 'ana@example.org', undefined, { totp_code: code });
  assert.equal(replay.statusCode, 401);
  assert.deepStrictEqual(replay.json(), { message: 'Incorrect two-factor code' });
});

test('a code from two periods ago is refused', async (t) => {
  const world = await usersWorld(t);
  const { secret } = await enrolled(world);
  const old = codeAt(secret, world.clock.now - 60_000);
  const res = await signIn(world.service, 'ana@example.org', undefined, { totp_code: old });
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'Incorrect two-factor code' });
});

test('turning the second factor off needs a current code', async (t) => {
  const world = await usersWorld(t);
  const { session, secret } = await enrolled(world);
  const refused = await asUser(world.service, session, 'DELETE', '/v1/me/totp', { code: '000000' === codeAt(secret, world.clock.now) ? '111111' : '000000' });
  assert.equal(refused.statusCode, 401);
  const res = await asUser(world.service, session, 'DELETE', '/v1/me/totp', { code: codeAt(secret, world.clock.now) });
  assert.equal(res.statusCode, 204);
  assert.equal((await signIn(world.service, 'ana@example.org')).statusCode, 200);
});
