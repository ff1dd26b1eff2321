// herald in English and Spanish outside the web application (issue 24, docs/languages.md):
// the user's language is stored by PATCH /v1/me and shown on the session; herald's emails
// to a user follow it; the public pages follow the browser's Accept-Language or `?lang`.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { simpleParser } from 'mailparser';
import { startSmtpSink } from '../peers/smtp-sink.ts';
import { ADMIN_TOKEN, post } from '../support/service.ts';
import { PUBLIC_URL, trackingWorld, visit } from '../support/sent-mail.ts';
import { serviceEmails } from '../support/service-email.ts';
import { adminRequest, asUser, publicPost, signedInUser, usersWorld } from '../support/users.ts';

const SENDER = { HERALD_AUTH_EMAIL_FROM: 'Acme Sign-in <signin@acme.example>', HERALD_PUBLIC_URL: 'https://herald.example.com' };
const SPANISH = { 'accept-language': 'es-MX,es;q=0.9,en;q=0.5' };

test('a user\'s chosen language is stored and shown on the session', async (t) => {
  const world = await usersWorld(t);
  const ana = await signedInUser(world, 'ana@example.org', 'owner');
  assert.equal((await asUser(world.service, ana, 'GET', '/v1/session')).json().user.locale, null);
  const changed = await asUser(world.service, ana, 'PATCH', '/v1/me', { locale: 'es' });
  assert.deepStrictEqual([changed.statusCode, changed.json().user.locale], [200, 'es']);
  assert.equal((await asUser(world.service, ana, 'GET', '/v1/session')).json().user.locale, 'es');
});

test('a language herald does not speak is refused', async (t) => {
  const world = await usersWorld(t);
  const ana = await signedInUser(world, 'ana@example.org', 'owner');
  const res = await asUser(world.service, ana, 'PATCH', '/v1/me', { locale: 'fr' });
  assert.deepStrictEqual([res.statusCode, res.json()], [400, { message: 'Invalid request, a field has the wrong type or value', detail: 'locale has the wrong type or value' }]);
});

test('an owner whose language is Spanish sends the invitation in Spanish', async (t) => {
  const world = await usersWorld(t, { env: { ...SENDER, HERALD_SESSION_RATE_LIMIT: '1000' } });
  const ana = await signedInUser(world, 'ana@example.org', 'owner');
  await asUser(world.service, ana, 'PATCH', '/v1/me', { locale: 'es' });
  const res = await asUser(world.service, ana, 'POST', '/v1/users', { email: 'bo@example.org', role: 'developer' });
  assert.equal(res.statusCode, 201, res.body);
  const emails = (await serviceEmails(world.service)).filter((e) => e.recipient === 'bo@example.org');
  const mail = await simpleParser(emails[0]!.raw);
  assert.equal(mail.subject, 'Le invitan a acme en herald');
  assert.equal(mail.text, `Hola:\n\nLe invitan a la cuenta «acme» en herald, con el rol de desarrollador.\nSiga este enlace para elegir su contraseña e iniciar sesión:\n\n${res.json().invitation_url}\n\nEl enlace funciona una sola vez, hasta el ${res.json().invitation_expires_at}. Si no esperaba esta invitación, ignore este correo.\n`);
});

test('a password reset for a user whose language is Spanish is written in Spanish', async (t) => {
  const world = await usersWorld(t, { env: SENDER });
  const ana = await signedInUser(world, 'ana@example.org', 'owner');
  await asUser(world.service, ana, 'PATCH', '/v1/me', { locale: 'es' });
  await publicPost(world.service, '/v1/auth/password-reset', { email: 'ana@example.org' });
  const [email] = (await serviceEmails(world.service)).filter((e) => e.raw.includes('password-reset#'));
  assert.equal((await simpleParser(email!.raw)).subject, 'Restablezca su contraseña de herald');
});

test('a link that is not valid is explained in Spanish to a Spanish browser', async (t) => {
  const world = await usersWorld(t);
  const res = await world.service.http.inject({ method: 'GET', url: '/confirm/not-a-token', headers: SPANISH });
  assert.equal(res.statusCode, 404);
  assert.match(res.body, /<html lang="es">/);
  assert.match(res.body, /<title>Enlace no válido<\/title>/);
  assert.match(res.body, /<h1>Este enlace no es válido<\/h1>\n<p>Puede haber caducado o haberse copiado de forma incompleta\.<\/p>/);
});

test('the lang parameter chooses the page\'s language over the browser\'s', async (t) => {
  const world = await usersWorld(t);
  const res = await world.service.http.inject({ method: 'GET', url: '/confirm/not-a-token?lang=en', headers: SPANISH });
  assert.match(res.body, /<html lang="en">[\s\S]*<h1>This link is not valid<\/h1>/);
});

/** A double opt-in list's confirmation link, as the recipient's copy (from a loopback relay) holds it. */
async function confirmationLink(t: TestContext): Promise<{ world: Awaited<ReturnType<typeof trackingWorld>>; link: string }> {
  const sink = await startSmtpSink({ starttls: false });
  t.after(() => sink.close());
  const world = await trackingWorld(t, { HERALD_EMAIL_TRANSPORT: `smtp://${sink.host}:${sink.port}` });
  const list = await post(world.service, '/v1/lists', world.account.apiKey, { name: 'Noticias', optin: 'double', from: { email: 'news@example.com', name: 'Example News' } });
  await post(world.service, '/v1/contacts', world.account.apiKey, { email: 'ana@example.org', lists: [list.json().list_id] });
  world.clock.now += 1000;
  await world.service.worker.drain();
  const html = String((await simpleParser(sink.messages[0]!.raw)).html);
  const url = /href="([^"]+)"/.exec(html)?.[1] ?? '';
  return { world, link: url.slice(PUBLIC_URL.length) };
}

test('the subscription confirmation page asks and confirms in Spanish for a Spanish browser', async (t) => {
  const { world, link } = await confirmationLink(t);
  const page = await visit(world, 'GET', link, { headers: SPANISH });
  assert.match(page.body, /<h1>Confirme su suscripción<\/h1>\n<p>¿Debe <strong>ana@example\.org<\/strong> recibir correo de Example News en la lista “Noticias”\?<\/p>\n<form method="post" action="">\n<button type="submit">Confirmar la suscripción<\/button>/);
  const done = await visit(world, 'POST', link, { headers: SPANISH });
  assert.match(done.body, /<h1>Suscripción confirmada<\/h1>\n<p><strong>ana@example\.org<\/strong> está suscrito a “Noticias”\.<\/p>/);
});

test('the operator\'s invitation is written in the language of the invite request', async (t) => {
  const world = await usersWorld(t, { env: SENDER });
  const res = await world.service.http.inject({
    method: 'POST', url: `/admin/v1/accounts/${world.account.id}/users`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', ...SPANISH },
    payload: JSON.stringify({ email: 'bo@example.org', role: 'owner' }),
  });
  assert.equal(res.statusCode, 201, res.body);
  const [email] = await serviceEmails(world.service);
  assert.deepStrictEqual([(await simpleParser(email!.raw)).subject, /con el rol de propietario/.test((await simpleParser(email!.raw)).text ?? '')], ['Le invitan a acme en herald', true]);
});

test('an invitation with no language known is written in English', async (t) => {
  const world = await usersWorld(t, { env: SENDER });
  await adminRequest(world.service, 'POST', `/admin/v1/accounts/${world.account.id}/users`, { email: 'bo@example.org', role: 'owner' });
  const [email] = await serviceEmails(world.service);
  assert.equal((await simpleParser(email!.raw)).subject, 'You are invited to acme on herald');
});
