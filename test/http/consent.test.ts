// Double opt-in: joining a double list sends a confirmation email through the ordinary
// email path (metered, billed, in the messages log); its link's GET only shows a page,
// the page's POST confirms; expired, forged and withdrawn links confirm nothing. The
// working link is only in the copy the recipient gets (here from a loopback SMTP relay):
// what the account's members can read holds a placeholder.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { simpleParser, type ParsedMail } from 'mailparser';
import { startSmtpSink, type SmtpSink } from '../peers/smtp-sink.ts';
import { get, openAccount, post, readAccount, send } from '../support/service.ts';
import { CHROME, PUBLIC_URL, READER_IP, T0, iso, sentMail, trackingWorld, visit, type TrackingWorld } from '../support/sent-mail.ts';
import { asUser, signedInUser } from '../support/users.ts';

interface ConsentWorld extends TrackingWorld {
  /** The relay the service sends through: what it holds is what recipients get. */
  readonly sink: SmtpSink;
}

/** A tracking world whose email goes to a loopback SMTP relay (no capture, so nothing to read back through /raw). */
async function consentWorld(t: TestContext): Promise<ConsentWorld> {
  const sink = await startSmtpSink({ starttls: false });
  t.after(() => sink.close());
  return { ...await trackingWorld(t, { HERALD_EMAIL_TRANSPORT: `smtp://${sink.host}:${sink.port}` }), sink };
}

/** The recipient's copy of the message `msgid`, as the relay received it. */
async function receivedMail(world: ConsentWorld, msgid: string): Promise<{ parsed: ParsedMail; html: string }> {
  for (const message of world.sink.messages) {
    const parsed = await simpleParser(message.raw);
    if (parsed.messageId?.startsWith(`<${msgid}@`)) return { parsed, html: typeof parsed.html === 'string' ? parsed.html : '' };
  }
  assert.fail(`the relay has no message ${msgid}`);
}

const NEWS_FROM = { email: 'news@example.com', name: 'Example News' };

async function doubleList(world: ConsentWorld, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await post(world.service, '/v1/lists', world.account.apiKey, { name: 'Weekly News', optin: 'double', from: NEWS_FROM, ...extra });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().list_id;
}

/** Signs Ana up to the list and delivers the confirmation email; the contact, the email's msgid and the link's path in the recipient's copy. */
async function signUp(world: ConsentWorld, list: string): Promise<{ contact: string; msgid: string; link: string; html: string; subject: string }> {
  const res = await post(world.service, '/v1/contacts', world.account.apiKey, { email: 'ana@example.org', name: 'Ana', lists: [list] });
  assert.equal(res.statusCode, 201, res.body);
  const msgid: string = res.json().consent[0].detail.msgid;
  world.clock.now += 1000;
  await world.service.worker.drain();
  const mail = await receivedMail(world, msgid);
  const url = /href="([^"]+)"/.exec(mail.html)?.[1] ?? '';
  assert.ok(url.startsWith(`${PUBLIC_URL}/confirm/`), url);
  return { contact: res.json().contact_id, msgid, link: url.slice(PUBLIC_URL.length), html: mail.html, subject: mail.parsed.subject ?? '' };
}

const contactOf = async (world: ConsentWorld, id: string) => (await get(world.service, `/v1/contacts/${id}`, world.account.apiKey)).json();
const titleOf = (res: LightMyRequestResponse): string => /<h1>(.*?)<\/h1>/.exec(res.body)?.[1] ?? '';

test('joining a double opt-in list leaves the subscription unconfirmed and sends a billed confirmation email from the list\'s sender', async (t) => {
  const world = await consentWorld(t);
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
  const mail = await receivedMail(world, msgid);
  assert.deepStrictEqual([mail.parsed.from?.text, mail.parsed.to && 'text' in mail.parsed.to ? mail.parsed.to.text : ''], ['"Example News" <news@example.com>', 'ana@example.org']);
  // Not tracked: the link goes straight to the confirmation page.
  assert.doesNotMatch(mail.html, /\/t\/[oc]\//);
  const log = (await get(world.service, '/v1/messages', world.account.apiKey)).json().data;
  assert.deepStrictEqual(log.map((m: { msgid: string; recipient: string; status: string }) => [m.msgid, m.recipient, m.status]), [[msgid, 'ana@example.org', 'sent']]);
});

test('the link\'s GET shows a page with a button and confirms nothing; its POST confirms, once, with the visitor recorded', async (t) => {
  const world = await consentWorld(t);
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
  const world = await consentWorld(t);
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
  const world = await consentWorld(t);
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
  const world = await consentWorld(t);
  const list = await doubleList(world);
  const { contact, link } = await signUp(world, list);
  await send(world.service, 'PATCH', `/v1/contacts/${contact}`, world.account.apiKey, { unsubscribe: [list] });
  const res = await visit(world, 'POST', link);
  assert.deepStrictEqual([res.statusCode, titleOf(res)], [410, 'This subscription was cancelled']);
  assert.deepStrictEqual((await contactOf(world, contact)).lists, [{ list_id: list, status: 'unsubscribed' }]);
});

test('joining again while unconfirmed sends no second email', async (t) => {
  const world = await consentWorld(t);
  const list = await doubleList(world);
  await signUp(world, list);
  const again = await post(world.service, '/v1/contacts', world.account.apiKey, { email: 'ana@example.org', lists: [list] });
  assert.equal(again.statusCode, 200);
  assert.equal(again.json().consent.length, 1);
  assert.equal((await get(world.service, '/v1/messages', world.account.apiKey)).json().data.length, 1);
});

test('a list\'s template replaces herald\'s confirmation text', async (t) => {
  const world = await consentWorld(t);
  const template = (await post(world.service, '/v1/email/templates', world.account.apiKey, {
    name: 'Confirm', subject: 'Hola {{name}}, confirm {{list_name}}', html: '<p>Click <a href="{{confirm_url}}">here</a>, {{email}}.</p>', text: 'Yes: {{confirm_url}}',
  })).json().template_id;
  const list = await doubleList(world, { confirmation_template_id: template });
  const { html, subject, link, msgid } = await signUp(world, list);
  assert.equal(subject, 'Hola Ana, confirm Weekly News');
  assert.match(html, new RegExp(`<p>Click <a href="${PUBLIC_URL}${link}">here</a>, ana@example.org.</p>`));
  assert.equal((await receivedMail(world, msgid)).parsed.text?.trim(), `Yes: ${PUBLIC_URL}${link}`);
  // What members read has the placeholder where the template placed the link.
  const preview = await get(world.service, `/v1/messages/${msgid}/preview`, world.account.apiKey);
  assert.equal(preview.body, '<p>Click <a href="https://herald.example.com/confirm/link-sent-to-the-recipient-only">here</a>, ana@example.org.</p>');
});

test('an account that cannot pay for the confirmation email is refused whole, and nothing is stored', async (t) => {
  const rich = await consentWorld(t);
  const world = { ...rich, account: await openAccount(rich.service, { name: 'spent', messagesLeft: 0 }) };
  const list = await doubleList(world);
  const res = await post(world.service, '/v1/contacts', world.account.apiKey, { email: 'ana@example.org', lists: [list] });
  assert.deepStrictEqual([res.statusCode, res.json()], [401, { message: 'No messages left, please buy more messages' }]);
  assert.deepStrictEqual((await get(world.service, '/v1/contacts', world.account.apiKey)).json(), { contacts: [], next_cursor: null });
});

test('a suppressed address gets its confirmation email dropped and unbilled; the subscription waits unconfirmed', async (t) => {
  const world = await consentWorld(t);
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

// ---- consent forgery: what members can read holds no working link ----

const PLACEHOLDER_LINK = `${PUBLIC_URL}/confirm/link-sent-to-the-recipient-only`;
/** A confirm link with a signed token in it (a compact JWS), wherever it appears. */
const SIGNED_LINK = /\/confirm\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/;

test('a viewer reading the confirmation email finds a placeholder where the link is, and it confirms nothing; the recipient\'s link confirms', async (t) => {
  const world = await consentWorld(t);
  const list = await doubleList(world);
  const { contact, msgid, link } = await signUp(world, list);
  const viewer = await signedInUser(world, 'viewer@example.org', 'viewer');

  const preview = await asUser(world.service, viewer, 'GET', `/v1/messages/${msgid}/preview`);
  assert.equal(preview.statusCode, 200);
  assert.ok(preview.body.includes(`<a href="${PLACEHOLDER_LINK}">Confirm my subscription</a>`), preview.body);
  assert.doesNotMatch(preview.body, SIGNED_LINK);
  const view = await asUser(world.service, viewer, 'GET', `/v1/messages/${msgid}`);
  assert.doesNotMatch(view.body, SIGNED_LINK);
  // Sent through a relay: no copy is kept to read.
  assert.equal((await asUser(world.service, viewer, 'GET', `/v1/messages/${msgid}/raw`)).statusCode, 404);

  for (const method of ['GET', 'POST'] as const) {
    const forged = await visit(world, method, PLACEHOLDER_LINK.slice(PUBLIC_URL.length));
    assert.deepStrictEqual([forged.statusCode, titleOf(forged)], [404, 'This link is not valid'], method);
  }
  assert.deepStrictEqual((await contactOf(world, contact)).lists, [{ list_id: list, status: 'unconfirmed' }]);

  assert.match(link, /^\/confirm\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  const confirmed = await visit(world, 'POST', link);
  assert.deepStrictEqual([confirmed.statusCode, titleOf(confirmed)], [200, 'Subscription confirmed']);
  assert.deepStrictEqual((await contactOf(world, contact)).lists, [{ list_id: list, status: 'confirmed' }]);
});

test('with the capture transport the kept copy, which members read through /raw, holds the placeholder and confirms nothing', async (t) => {
  const world = await trackingWorld(t);
  const list = (await post(world.service, '/v1/lists', world.account.apiKey, { name: 'Weekly News', optin: 'double', from: NEWS_FROM })).json().list_id;
  const res = await post(world.service, '/v1/contacts', world.account.apiKey, { email: 'ana@example.org', lists: [list] });
  const msgid: string = res.json().consent[0].detail.msgid;
  await world.service.worker.drain();

  const mail = await sentMail(world, msgid);
  assert.doesNotMatch(mail.raw, SIGNED_LINK);
  assert.ok(mail.html.includes(`<a href="${PLACEHOLDER_LINK}">Confirm my subscription</a>`), mail.html);
  assert.ok(String(mail.parsed.text).includes(PLACEHOLDER_LINK));
  const posted = await visit(world, 'POST', PLACEHOLDER_LINK.slice(PUBLIC_URL.length));
  assert.equal(posted.statusCode, 404);
  assert.deepStrictEqual((await get(world.service, `/v1/contacts/${res.json().contact_id}`, world.account.apiKey)).json().lists, [{ list_id: list, status: 'unconfirmed' }]);
});
