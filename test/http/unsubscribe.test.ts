// Unsubscribe over HTTP, from the List-Unsubscribe header of the message as sent:
// the confirmation page (a GET never unsubscribes), the page's form, the RFC 8058
// one-click POST, and what the suppression means for the next send.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { get, post, emailBody, readAccount } from '../support/service.ts';
import { CHROME, READER_IP, T0, engagementsOf, eventsOf, iso, sendAndDeliver, sentMail, trackingWorld, visit, type TrackingWorld } from '../support/sent-mail.ts';

const DAY = 86_400_000;
const ONE_CLICK = { 'content-type': 'application/x-www-form-urlencoded' };
const GMAIL_UA = 'Mozilla/5.0 (compatible; Google-Mail-Unsubscribe)';

async function suppressions(world: TrackingWorld): Promise<unknown[]> {
  const res = await get(world.service, '/v1/suppressions', world.account.apiKey);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data;
}

test('every message carries a one-click List-Unsubscribe header pointing at herald', async (t) => {
  const world = await trackingWorld(t);
  const mail = await sentMail(world, await sendAndDeliver(world));
  assert.match(mail.unsubscribe, /^\/u\/[\w-]+\.[\w-]+\.[\w-]+$/);
  assert.deepStrictEqual(mail.parsed.headers.get('list'), {
    unsubscribe: { url: `https://herald.example.com${mail.unsubscribe}` },
    'unsubscribe-post': { name: 'List-Unsubscribe=One-Click' },
  });
});

test('the unsubscribe link opens a confirmation page with a button, and the GET alone unsubscribes nobody', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  const { unsubscribe } = await sentMail(world, msgid);

  const res = await visit(world, 'GET', unsubscribe);
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.match(res.body, /<p>Stop all email from Example News to <strong>ana@example\.org<\/strong>\?<\/p>/);
  assert.match(res.body, /<form method="post" action="">\n<input type="hidden" name="List-Unsubscribe" value="One-Click">\n<input type="hidden" name="via" value="page">\n<button type="submit">Unsubscribe<\/button>/);
  assert.deepStrictEqual(await engagementsOf(world, msgid), []);
  assert.deepStrictEqual(await suppressions(world), []);
});

test('the one-click POST suppresses the address, records the unsubscribe and answers 200 in plain text', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  const { unsubscribe } = await sentMail(world, msgid);
  world.clock.now += 60_000;

  const res = await visit(world, 'POST', unsubscribe, { headers: ONE_CLICK, payload: 'List-Unsubscribe=One-Click', userAgent: GMAIL_UA });
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.equal(res.body, 'Unsubscribed\n');
  assert.deepStrictEqual(await suppressions(world), [{ email: 'ana@example.org', reason: 'unsubscribed', msgid, created_at: iso(T0 + 61_000) }]);
  assert.deepStrictEqual(await engagementsOf(world, msgid), [
    { type: 'unsubscribed', at: iso(T0 + 61_000), via: 'one-click', ip: READER_IP, user_agent: GMAIL_UA },
  ]);
});

test('the unsubscribe is written to the consent ledger with its proof, and shown apart from the suppression', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  const { unsubscribe } = await sentMail(world, msgid);
  await visit(world, 'POST', unsubscribe, { headers: ONE_CLICK, payload: 'List-Unsubscribe=One-Click', userAgent: GMAIL_UA });
  const consent = (await get(world.service, '/v1/consent?address=ana%40example.org', world.account.apiKey)).json();
  const [entry] = consent.history;
  assert.deepStrictEqual(consent, {
    address: 'ana@example.org',
    channels: {
      email: { state: 'opted_out', opted_out_of: [{ sender: '', since: iso(T0 + 1000) }] },
      sms: { state: 'opted_in', opted_out_of: [] },
      whatsapp: { state: 'opted_in', opted_out_of: [] },
    },
    suppression: { reason: 'unsubscribed', since: iso(T0 + 1000) },
    history: [{
      id: entry.id, channel: 'email', address: 'ana@example.org', sender: '', change: 'opted_out', source: 'unsubscribe', keyword: null,
      proof: { message_id: msgid, via: 'one-click', ip: READER_IP, user_agent: GMAIL_UA }, at: iso(T0 + 1000),
    }],
  });
});

test('the one-click POST is also accepted as multipart/form-data, as RFC 8058 prefers', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  const { unsubscribe } = await sentMail(world, msgid);
  const form = new FormData();
  form.set('List-Unsubscribe', 'One-Click');
  const request = new Request('http://x/', { method: 'POST', body: form });
  const payload = Buffer.from(await request.arrayBuffer());

  const res = await visit(world, 'POST', unsubscribe, { headers: { 'content-type': request.headers.get('content-type') ?? '' }, payload });
  assert.equal(res.statusCode, 200);
  assert.equal(res.body, 'Unsubscribed\n');
  assert.deepStrictEqual((await engagementsOf(world, msgid)).map((e) => [e['type'], e['via']]), [['unsubscribed', 'one-click']]);
});

test('a multipart/form-data body is read field by field: the page\'s via=page gets the HTML answer', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  const { unsubscribe } = await sentMail(world, msgid);
  const form = new FormData();
  form.set('List-Unsubscribe', 'One-Click');
  form.set('via', 'page');
  const request = new Request('http://x/', { method: 'POST', body: form });
  const payload = Buffer.from(await request.arrayBuffer());

  const res = await visit(world, 'POST', unsubscribe, { headers: { 'content-type': request.headers.get('content-type') ?? '' }, payload });
  assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
  assert.deepStrictEqual((await engagementsOf(world, msgid)).map((e) => [e['type'], e['via']]), [['unsubscribed', 'page']]);
});

test('confirming on the page unsubscribes and answers with an HTML page', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  const { unsubscribe } = await sentMail(world, msgid);
  world.clock.now += 60_000;

  const res = await visit(world, 'POST', unsubscribe, { headers: ONE_CLICK, payload: 'List-Unsubscribe=One-Click&via=page' });
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
  assert.match(res.body, /<h1>You are unsubscribed<\/h1>\n<p><strong>ana@example\.org<\/strong> will receive no more email from Example News\.<\/p>/);
  assert.deepStrictEqual(await engagementsOf(world, msgid), [
    { type: 'unsubscribed', at: iso(T0 + 61_000), via: 'page', ip: READER_IP, user_agent: CHROME },
  ]);
});

test('unsubscribing twice leaves one suppression and one event', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  const { unsubscribe } = await sentMail(world, msgid);
  world.clock.now += 60_000;
  await visit(world, 'POST', unsubscribe, { headers: ONE_CLICK, payload: 'List-Unsubscribe=One-Click' });
  world.clock.now += 60_000;
  const again = await visit(world, 'POST', unsubscribe, { headers: ONE_CLICK, payload: 'List-Unsubscribe=One-Click' });
  assert.equal(again.statusCode, 200);
  assert.deepStrictEqual(await suppressions(world), [{ email: 'ana@example.org', reason: 'unsubscribed', msgid, created_at: iso(T0 + 61_000) }]);
  assert.deepStrictEqual((await engagementsOf(world, msgid)).map((e) => e['at']), [iso(T0 + 61_000)]);
});

test('after unsubscribing, the page says so instead of asking again', async (t) => {
  const world = await trackingWorld(t);
  const { unsubscribe } = await sentMail(world, await sendAndDeliver(world));
  await visit(world, 'POST', unsubscribe, { headers: ONE_CLICK, payload: 'List-Unsubscribe=One-Click' });
  const page = await visit(world, 'GET', unsubscribe);
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<h1>Already unsubscribed<\/h1>\n<p><strong>ana@example\.org<\/strong> already receives no email from Example News\. Nothing was changed\.<\/p>/);
  assert.doesNotMatch(page.body, /<form/);
});

test('a later send to the unsubscribed address is dropped: not sent and not billed', async (t) => {
  const world = await trackingWorld(t);
  const { unsubscribe } = await sentMail(world, await sendAndDeliver(world));
  await visit(world, 'POST', unsubscribe, { headers: ONE_CLICK, payload: 'List-Unsubscribe=One-Click' });
  const before = (await readAccount(world.service, world.account.id)).messagesLeft;

  const res = await post(world.service, '/v1/email', world.account.apiKey, emailBody({ to: [{ email: 'Ana@Example.org' }] }));
  assert.equal(res.statusCode, 200);
  const msgid = res.json().to[0].msgid;
  await world.service.worker.drain();
  assert.equal((await readAccount(world.service, world.account.id)).messagesLeft, before);
  const view = await get(world.service, `/v1/messages/${msgid}`, world.account.apiKey);
  assert.equal(view.json().status, 'dropped');
  assert.deepStrictEqual(await eventsOf(world, msgid), [{ type: 'dropped', at: iso(world.clock.now), reason: 'suppressed' }]);
  assert.equal((await get(world.service, `/v1/messages/${msgid}/raw`, world.account.apiKey)).statusCode, 404);
});

test('a forged unsubscribe token gets 404 and suppresses nobody', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  const { unsubscribe } = await sentMail(world, msgid);
  const forged = `${unsubscribe.slice(0, -4)}AAAA`;
  const page = await visit(world, 'GET', forged);
  assert.equal(page.statusCode, 404);
  assert.match(page.body, /<h1>This link is not valid<\/h1>/);
  const oneClick = await visit(world, 'POST', forged, { headers: ONE_CLICK, payload: 'List-Unsubscribe=One-Click' });
  assert.equal(oneClick.statusCode, 404);
  assert.equal(oneClick.body, 'Not found\n');
  assert.deepStrictEqual(await suppressions(world), []);
  assert.deepStrictEqual(await engagementsOf(world, msgid), []);
});

test('an open token is not an unsubscribe token', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  const { pixel } = await sentMail(world, msgid);
  const res = await visit(world, 'POST', (pixel ?? '').replace('/t/o/', '/u/'), { headers: ONE_CLICK, payload: 'List-Unsubscribe=One-Click' });
  assert.equal(res.statusCode, 404);
  assert.deepStrictEqual(await suppressions(world), []);
});

test('an unsubscribe link two years after sending gets 404 and suppresses nobody', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  const { unsubscribe } = await sentMail(world, msgid);
  world.clock.now += 730 * DAY;
  assert.equal((await visit(world, 'GET', unsubscribe)).statusCode, 404);
  assert.equal((await visit(world, 'POST', unsubscribe, { headers: ONE_CLICK, payload: 'List-Unsubscribe=One-Click' })).statusCode, 404);
  assert.deepStrictEqual(await suppressions(world), []);
});

test('a one-click POST body over 16 KiB is refused with 413 and suppresses nobody', async (t) => {
  const world = await trackingWorld(t);
  const { unsubscribe } = await sentMail(world, await sendAndDeliver(world));
  const res = await visit(world, 'POST', unsubscribe, { headers: ONE_CLICK, payload: `List-Unsubscribe=One-Click&x=${'a'.repeat(17 * 1024)}` });
  assert.equal(res.statusCode, 413);
  assert.deepStrictEqual(await suppressions(world), []);
});

test('the confirmation page escapes the sender\'s name', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world, { from: { email: 'news@example.com', name: '<script>alert(1)</script> & Co' } });
  const page = await visit(world, 'GET', (await sentMail(world, msgid)).unsubscribe);
  assert.match(page.body, /Stop all email from &lt;script&gt;alert\(1\)&lt;\/script&gt; &amp; Co to/);
  assert.doesNotMatch(page.body, /<script>/);
  assert.equal(page.headers['content-security-policy'], "default-src 'none'; style-src 'sha256-L2nfXreNxx2xHHvsDQpGTHw0XQ2ke6DcRYT4dYqtuvY='; base-uri 'none'; form-action 'self'; frame-ancestors 'none'");
});
