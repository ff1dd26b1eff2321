// Password reset by email, and the invitation email, through herald's own email path
// from the operator's sender (HERALD_AUTH_EMAIL_FROM), captured by the capture transport.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { simpleParser } from 'mailparser';
import { get } from '../support/service.ts';
import { linkIn, serviceEmails } from '../support/service-email.ts';
import { asUser, invite, PASSWORD, publicPost, sessionOf, signedInUser, signIn, tokenOf, usersWorld } from '../support/users.ts';

const SENDER = { HERALD_AUTH_EMAIL_FROM: 'Acme Sign-in <signin@acme.example>', HERALD_PUBLIC_URL: 'https://herald.example.com' };
const SENT = { message: 'If a user has this address, an email with a link to set a new password is on its way', email_enabled: true };
const NO_SENDER = { message: 'herald sends no email here, so no reset link can be sent: ask an owner of your account or the operator', email_enabled: false };
const NEW_PASSWORD = 'a brand new long password';

test('asking for a reset emails a one-time link from the operator\'s sender', async (t) => {
  const world = await usersWorld(t, { env: SENDER });
  await signedInUser(world, 'ana@example.org', 'owner');
  const res = await publicPost(world.service, '/v1/auth/password-reset', { email: 'Ana@Example.org' });
  assert.equal(res.statusCode, 202);
  assert.deepStrictEqual(res.json(), SENT);
  const emails = (await serviceEmails(world.service)).filter((e) => e.raw.includes('Reset your herald password'));
  assert.equal(emails.length, 1);
  const mail = await simpleParser(emails[0]!.raw);
  assert.equal(mail.from?.text, '"Acme Sign-in" <signin@acme.example>');
  assert.equal(mail.to && !Array.isArray(mail.to) ? mail.to.text : undefined, 'ana@example.org');
  assert.equal(mail.subject, 'Reset your herald password');
  assert.match(mail.text ?? '', /^Hello,\n\nSomeone \(we hope you\) asked to reset your herald password\. Follow this link to choose a new one:\n\nhttps:\/\/herald\.example\.com\/app\/password-reset#[A-Za-z0-9_-]{43}\n/);
});

test('the reset link sets a new password, signs in, and ends every other session', async (t) => {
  const world = await usersWorld(t, { env: SENDER });
  const before = await signedInUser(world, 'ana@example.org', 'owner');
  await publicPost(world.service, '/v1/auth/password-reset', { email: 'ana@example.org' });
  const [email] = (await serviceEmails(world.service)).filter((e) => e.raw.includes('password-reset#'));
  const link = linkIn(email!.raw, '/app/password-reset');
  assert.ok(link !== undefined);
  const res = await publicPost(world.service, '/v1/auth/password-reset/complete', { token: tokenOf(link), password: NEW_PASSWORD });
  const after = sessionOf(res);
  assert.equal((await asUser(world.service, before, 'GET', '/v1/session')).statusCode, 401);
  assert.equal((await asUser(world.service, after, 'GET', '/v1/session')).statusCode, 200);
  assert.equal((await signIn(world.service, 'ana@example.org')).statusCode, 401);
  assert.equal((await signIn(world.service, 'ana@example.org', NEW_PASSWORD)).statusCode, 200);
  const again = await publicPost(world.service, '/v1/auth/password-reset/complete', { token: tokenOf(link), password: 'yet another long password' });
  assert.equal(again.statusCode, 404);
  assert.deepStrictEqual(again.json(), { message: 'This link is invalid, used or expired' });
});

test('an unknown address gets the same answer and no email', async (t) => {
  const world = await usersWorld(t, { env: SENDER });
  const res = await publicPost(world.service, '/v1/auth/password-reset', { email: 'nobody@example.org' });
  assert.equal(res.statusCode, 202);
  assert.deepStrictEqual(res.json(), SENT);
  assert.deepStrictEqual(await serviceEmails(world.service), []);
});

test('the reset emails stay out of the user\'s own account', async (t) => {
  const world = await usersWorld(t, { env: SENDER });
  await signedInUser(world, 'ana@example.org', 'owner');
  await publicPost(world.service, '/v1/auth/password-reset', { email: 'ana@example.org' });
  assert.equal((await serviceEmails(world.service)).length, 2);
  const log = await get(world.service, '/v1/messages', world.account.apiKey);
  assert.equal(log.statusCode, 200);
  assert.deepStrictEqual(log.json(), { data: [], next_cursor: null });
});

test('an invitation is emailed with its link when herald has a sender', async (t) => {
  const world = await usersWorld(t, { env: SENDER });
  const token = await invite(world.service, world.account.id, 'bo@example.org', 'developer');
  const [email] = await serviceEmails(world.service);
  assert.equal(email?.recipient, 'bo@example.org');
  const mail = await simpleParser(email!.raw);
  assert.equal(mail.subject, 'You are invited to acme on herald');
  assert.equal(linkIn(email!.raw, '/app/invitation'), `https://herald.example.com/app/invitation#${token}`);
});

test('without a sender nothing is emailed and the answer says so, the same for every address', async (t) => {
  const world = await usersWorld(t);
  await signedInUser(world, 'ana@example.org', 'owner');
  const res = await publicPost(world.service, '/v1/auth/password-reset', { email: 'ana@example.org' });
  assert.equal(res.statusCode, 202);
  assert.deepStrictEqual(res.json(), NO_SENDER);
  assert.deepStrictEqual((await publicPost(world.service, '/v1/auth/password-reset', { email: 'nobody@example.org' })).json(), NO_SENDER);
  assert.deepStrictEqual(await serviceEmails(world.service), []);
});

test('changing the password cancels a reset link still pending', async (t) => {
  const world = await usersWorld(t, { env: SENDER });
  const session = await signedInUser(world, 'ana@example.org', 'owner');
  await publicPost(world.service, '/v1/auth/password-reset', { email: 'ana@example.org' });
  const [email] = (await serviceEmails(world.service)).filter((e) => e.raw.includes('password-reset#'));
  const link = linkIn(email!.raw, '/app/password-reset') ?? assert.fail('no link in the email');
  const changed = await asUser(world.service, session, 'POST', '/v1/me/password', { current_password: PASSWORD, new_password: NEW_PASSWORD });
  assert.equal(changed.statusCode, 204, changed.body);
  const res = await publicPost(world.service, '/v1/auth/password-reset/complete', { token: tokenOf(link), password: 'yet another long password' });
  assert.equal(res.statusCode, 404);
  assert.deepStrictEqual(res.json(), { message: 'This link is invalid, used or expired' });
  assert.equal((await signIn(world.service, 'ana@example.org', NEW_PASSWORD)).statusCode, 200);
});

test('changing the password ends the user\'s other sessions and keeps the one that changed it', async (t) => {
  const world = await usersWorld(t, { env: SENDER });
  const here = await signedInUser(world, 'ana@example.org', 'owner');
  const elsewhere = sessionOf(await signIn(world.service, 'ana@example.org'));
  const changed = await asUser(world.service, here, 'POST', '/v1/me/password', { current_password: PASSWORD, new_password: NEW_PASSWORD });
  assert.equal(changed.statusCode, 204, changed.body);
  assert.equal((await asUser(world.service, elsewhere, 'GET', '/v1/session')).statusCode, 401);
  assert.equal((await asUser(world.service, here, 'GET', '/v1/session')).statusCode, 200);
});
