// Nothing secret reaches the log: passwords, session ids (cookies), CSRF tokens,
// invitation and reset tokens, the admin token, TOTP secrets. The whole sign-in story
// runs with the service's logger at debug level, and every line is searched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { ADMIN_TOKEN } from '../support/service.ts';
import { linkIn, serviceEmails } from '../support/service-email.ts';
import { adminRequest, asUser, PASSWORD, publicPost, sessionOf, signIn, tokenOf, usersWorld } from '../support/users.ts';

test('the sign-in story writes no secret into any log line', async (t) => {
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done(); } });
  const world = await usersWorld(t, {
    logger: pino({ level: 'debug' }, sink),
    env: { HERALD_AUTH_EMAIL_FROM: 'signin@acme.example', HERALD_PUBLIC_URL: 'https://herald.example.com' },
  });
  const secrets: string[] = [PASSWORD, ADMIN_TOKEN];

  const operator = await publicPost(world.service, '/admin/v1/session', { token: ADMIN_TOKEN });
  secrets.push(operator.cookies.find((c) => c.name === 'herald_admin_session')?.value ?? 'missing', operator.json().csrf_token);
  const invited = await adminRequest(world.service, 'POST', `/admin/v1/accounts/${world.account.id}/users`, { email: 'ana@example.org', role: 'owner' });
  const invitation = tokenOf(invited.json().invitation_url);
  secrets.push(invitation);
  await publicPost(world.service, '/v1/auth/invitation', { token: invitation });
  const first = sessionOf(await publicPost(world.service, '/v1/auth/invitation/accept', { token: invitation, password: PASSWORD }));
  secrets.push(first.cookie, first.csrf);
  const totp = (await asUser(world.service, first, 'POST', '/v1/me/totp')).json();
  secrets.push(totp.secret);
  await asUser(world.service, first, 'POST', '/v1/users', { email: 'bo@example.org', role: 'viewer' }, null);
  const second = sessionOf(await signIn(world.service, 'ana@example.org'));
  secrets.push(second.cookie, second.csrf);
  await signIn(world.service, 'ana@example.org', 'a wrong password guess');
  await publicPost(world.service, '/v1/auth/password-reset', { email: 'ana@example.org' });
  const reset = (await serviceEmails(world.service)).map((e) => linkIn(e.raw, '/app/password-reset')).find((link) => link !== undefined);
  assert.ok(reset !== undefined);
  secrets.push(tokenOf(reset), 'a wrong password guess');
  await publicPost(world.service, '/v1/auth/password-reset/complete', { token: tokenOf(reset), password: 'the second long password' });
  secrets.push('the second long password');
  await asUser(world.service, second, 'GET', '/v1/session');

  // The search means something only if the requests were logged at all.
  for (const path of ['/admin/v1/session', '/v1/auth/invitation/accept', '/v1/me/totp', '/v1/users', '/v1/auth/sign-in', '/v1/auth/password-reset/complete', '/v1/session']) {
    assert.ok(lines.some((line) => line.includes(`"${path}"`)), `no log line for ${path}`);
  }
  for (const secret of secrets) {
    const leaking = lines.filter((line) => line.includes(secret));
    assert.deepStrictEqual(leaking, [], `a log line holds ${secret.slice(0, 4)}…`);
  }
});
