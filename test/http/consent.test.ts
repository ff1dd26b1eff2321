// Double opt-in: joining a double list sends a confirmation email through the ordinary
// email path (metered, billed, in the messages log); its link's GET only shows a page,
// the page's POST confirms; expired, forged and withdrawn links confirm nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { get, openAccount, post, readAccount, send } from '../support/service.ts';
import { CHROME, PUBLIC_URL, READER_IP, T0, iso, sentMail, trackingWorld, visit, type TrackingWorld } from '../support/sent-mail.ts';

const NEWS_FROM = { email: 'news@example.com', name: 'Example News' };

async function doubleList(world: TrackingWorld, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await post(world.service, '/v1/lists', world.account.apiKey, { name: 'Weekly News', optin: 'double', from: NEWS_FROM, ...extra });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().list_id;
}

/** Signs Ana up to the list and delivers the confirmation email; the contact, the email's msgid and the link's path. */
async function signUp(world: TrackingWorld, list: string): Promise<{ contact: string; msgid: string; link: string; html: string; subject: string }> {
  const res = await post(world.service, '/v1/contacts', world.account.apiKey, { email: 'ana@example.org', name: 'Ana', lists: [list] });
  assert.equal(res.statusCode, 201, res.body);
  const msgid: string = res.json().consent[0].detail.msgid;
  world.clock.now += 1000;
  await world.service.worker.drain();
  const mail = await sentMail(world, msgid);
  const url = /href="([^"]+)"/.exec(mail.html)?.[1] ?? '';
  assert.ok(url.startsWith(`${PUBLIC_URL}/confirm/`), url);
  return { contact: res.json().contact_id, msgid, link: url.slice(PUBLIC_URL.length), html: mail.html, subject: mail.parsed.subject ?? '' };
}

const contactOf = async (world: TrackingWorld, id: string) => (await get(world.service, `/v1/contacts/${id}`, world.account.apiKey)).json();
const titleOf = (res: LightMyRequestResponse): string => /<h1>(.*?)<\/h1>/.exec(res.body)?.[1] ?? '';

test('joining a double opt-in list leaves the subscription unconfirmed and sends a billed confirmation email from the list\'s sender', async (t) => {
  const world = await trackingWorld(t);
  const list = await doubleList(world);
  const before = (await readAccount(world.service, world.account.id)).messagesLeft;
  const { contact, msgid, subject } = await signUp(world, list);
  assert.equal((await readAccount(world.service, world.account.id)).messagesLeft, before - 1);
  const view = await contactOf(world, contact);
  assert.deepStrictEqual([view.lists, view.consent], [
    [{ list_id: list, status: 'unconfirmed' }],
    [{ list_id: list, status: 'unconfirmed', source: 'api', at: iso(T0), detail: { msgid } }],
  ]);
  assert.equal(subject, 'Confirm your subscription to Weekly News');
  const mail = await sentMail(world, msgid);
  assert.deepStrictEqual([mail.parsed.from?.text, mail.parsed.to && 'text' in mail.parsed.to ? mail.parsed.to.text : ''], ['"Example News" <news@example.com>', 'ana@example.org']);
  // Not tracked: the link goes straight to the confirmation page.
  assert.deepStrictEqual([mail.pixel, mail.clicks], [undefined, []]);
  const log = (await get(world.service, '/v1/messages', world.account.apiKey)).json().data;
  assert.deepStrictEqual(log.map((m: { msgid: string; recipient: string; status: string }) => [m.msgid, m.recipient, m.status]), [[msgid, 'ana@example.org', 'sent']]);
});

test('the link\'s GET shows a page with a button and confirms nothing; its POST confirms, once, with the visitor recorded', async (t) => {
  const world = await trackingWorld(t);
  const list = await doubleList(world);
  const { contact, msgid, link } = await signUp(world, list);

  const page = await visit(world, 'GET', link);
  assert.deepStrictEqual([page.statusCode, page.headers['content-type'], page.headers['cache-control'], titleOf(page)], [200, 'text/html; charset=utf-8', 'no-store', 'Confirm your subscription']);
  assert.match(page.body, /Should <strong>ana@example\.org<\/strong> receive email from Example News on the list “Weekly News”\?/);
  assert.match(page.body, /<form method="post" action="">\n<button type="submit">Confirm subscription<\/button>/);
  assert.deepStrictEqual((await contactOf(world, contact)).lists, [{ list_id: list, status: 'unconfirmed' }]);

  world.clock.now += 60_000;
  const confirmed = await visit(world, 'POST', link, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });
  assert.deepStrictEqual([confirmed.statusCode, titleOf(confirmed)], [200, 'Subscription confirmed']);
  const again = await visit(world, 'POST', link);
  assert.deepStrictEqual([again.statusCode, titleOf(again)], [200, 'Subscription confirmed']);
  const view = await contactOf(world, contact);
  assert.deepStrictEqual([view.lists, view.consent], [
    [{ list_id: list, status: 'confirmed' }],
    [
      { list_id: list, status: 'unconfirmed', source: 'api', at: iso(T0), detail: { msgid } },
      { list_id: list, status: 'confirmed', source: 'link', at: iso(T0 + 61_000), detail: { ip: READER_IP, user_agent: CHROME } },
    ],
  ]);
});

test('an expired link shows that it expired and confirms nothing', async (t) => {
  const world = await trackingWorld(t);
  const list = await doubleList(world);
  const { contact, link } = await signUp(world, list);
  world.clock.now = T0 + 7 * 86_400_000 + 1000;
  for (const method of ['GET', 'POST'] as const) {
    const res = await visit(world, method, link);
    assert.deepStrictEqual([res.statusCode, titleOf(res)], [410, 'This link has expired'], method);
  }
  assert.deepStrictEqual((await contactOf(world, contact)).lists, [{ list_id: list, status: 'unconfirmed' }]);
});

test('a forged or altered link is refused with 404 and confirms nothing', async (t) => {
  const world = await trackingWorld(t);
  const list = await doubleList(world);
  const { contact, link } = await signUp(world, list);
  const token = link.slice('/confirm/'.length);
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const forgedPayload = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), l: '01a20000-0000-7000-8000-000000000000' })).toString('base64url');
  for (const bad of [`${header}.${forgedPayload}.${signature}`, `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`, 'not-a-token', 'a'.repeat(2000)]) {
    const res = await visit(world, 'POST', `/confirm/${bad}`);
    assert.deepStrictEqual([res.statusCode, titleOf(res)], [404, 'This link is not valid'], bad.slice(0, 40));
  }
  assert.deepStrictEqual((await contactOf(world, contact)).lists, [{ list_id: list, status: 'unconfirmed' }]);
});

test('a link of a subscription withdrawn since does not subscribe again', async (t) => {
  const world = await trackingWorld(t);
  const list = await doubleList(world);
  const { contact, link } = await signUp(world, list);
  await send(world.service, 'PATCH', `/v1/contacts/${contact}`, world.account.apiKey, { unsubscribe: [list] });
  const res = await visit(world, 'POST', link);
  assert.deepStrictEqual([res.statusCode, titleOf(res)], [410, 'This subscription was cancelled']);
  assert.deepStrictEqual((await contactOf(world, contact)).lists, [{ list_id: list, status: 'unsubscribed' }]);
});

test('joining again while unconfirmed sends no second email', async (t) => {
  const world = await trackingWorld(t);
  const list = await doubleList(world);
  await signUp(world, list);
  const again = await post(world.service, '/v1/contacts', world.account.apiKey, { email: 'ana@example.org', lists: [list] });
  assert.equal(again.statusCode, 200);
  assert.equal(again.json().consent.length, 1);
  assert.equal((await get(world.service, '/v1/messages', world.account.apiKey)).json().data.length, 1);
});

test('a list\'s template replaces herald\'s confirmation text', async (t) => {
  const world = await trackingWorld(t);
  const template = (await post(world.service, '/v1/email/templates', world.account.apiKey, {
    name: 'Confirm', subject: 'Hola {{name}}, confirm {{list_name}}', html: '<p>Click <a href="{{confirm_url}}">here</a>, {{email}}.</p>',
  })).json().template_id;
  const list = await doubleList(world, { confirmation_template_id: template });
  const { html, subject, link } = await signUp(world, list);
  assert.equal(subject, 'Hola Ana, confirm Weekly News');
  assert.match(html, new RegExp(`<p>Click <a href="${PUBLIC_URL}${link}">here</a>, ana@example.org.</p>`));
});

test('an account that cannot pay for the confirmation email is refused whole, and nothing is stored', async (t) => {
  const rich = await trackingWorld(t);
  const world = { ...rich, account: await openAccount(rich.service, { name: 'spent', messagesLeft: 0 }) };
  const list = await doubleList(world);
  const res = await post(world.service, '/v1/contacts', world.account.apiKey, { email: 'ana@example.org', lists: [list] });
  assert.deepStrictEqual([res.statusCode, res.json()], [401, { message: 'No messages left, please buy more messages' }]);
  assert.deepStrictEqual((await get(world.service, '/v1/contacts', world.account.apiKey)).json(), { contacts: [], next_cursor: null });
});

test('a suppressed address gets its confirmation email dropped and unbilled; the subscription waits unconfirmed', async (t) => {
  const world = await trackingWorld(t);
  const list = await doubleList(world);
  await post(world.service, '/v1/suppressions', world.account.apiKey, { email: 'ana@example.org' });
  const before = (await readAccount(world.service, world.account.id)).messagesLeft;
  const res = await post(world.service, '/v1/contacts', world.account.apiKey, { email: 'ana@example.org', lists: [list] });
  assert.equal(res.statusCode, 201);
  assert.deepStrictEqual(res.json().lists, [{ list_id: list, status: 'unconfirmed' }]);
  const msgid = res.json().consent[0].detail.msgid;
  assert.equal((await get(world.service, `/v1/messages/${msgid}`, world.account.apiKey)).json().status, 'dropped');
  assert.equal((await readAccount(world.service, world.account.id)).messagesLeft, before);
});
