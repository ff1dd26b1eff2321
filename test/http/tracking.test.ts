// Open and click tracking over HTTP, from the message as it was sent: the pixel and
// the rewritten links are read out of the captured MIME and followed with inject;
// the events are read back with GET /v1/messages/:msgid.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { trackingTokens } from '../../src/domain/tracking-token.ts';
import { ADMIN_TOKEN, emailBody, post } from '../support/service.ts';
import {
  CHROME, LINKS_HTML, READER_IP, T0, engagementsOf, eventsOf, iso, sendAndDeliver, sentMail, trackingWorld, visit, type TrackingWorld,
} from '../support/sent-mail.ts';

const GIF_1X1 = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const JULY = 'https://shop.example.com/july?utm=mail&id=7';
const HELP = 'https://shop.example.com/help';
const DAY = 86_400_000;

test('the pixel answers a 1×1 GIF that must not be cached, and records one open by a person with IP and user agent', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  const { pixel } = await sentMail(world, msgid);
  world.clock.now += 60_000;

  const res = await visit(world, 'GET', pixel ?? '');
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'image/gif');
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.deepStrictEqual(res.rawPayload, GIF_1X1);
  assert.deepStrictEqual(GIF_1X1.subarray(0, 10), Buffer.from([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0]), 'GIF89a, 1 × 1');
  assert.deepStrictEqual(await engagementsOf(world, msgid), [
    { type: 'opened', at: iso(T0 + 61_000), machine: false, ip: READER_IP, user_agent: CHROME },
  ]);
});

test('each fetch of the pixel is an open of its own; the status stays sent', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  const { pixel } = await sentMail(world, msgid);
  world.clock.now += 60_000;
  await visit(world, 'GET', pixel ?? '');
  world.clock.now += 60_000;
  await visit(world, 'GET', pixel ?? '');
  const events = await eventsOf(world, msgid);
  assert.deepStrictEqual(events.map((e) => e['type']), ['queued', 'sending', 'sent', 'opened', 'opened']);
  const view = await world.service.http.inject({ method: 'GET', url: `/v1/messages/${msgid}`, headers: { authorization: `Bearer ${world.account.apiKey}` } });
  assert.equal(view.json().status, 'sent');
});

test('a tracked link redirects to the URL the message had and records the click with it', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  const { clicks } = await sentMail(world, msgid);
  assert.equal(clicks.length, 2);
  world.clock.now += 60_000;

  const res = await visit(world, 'GET', clicks[0] ?? '');
  assert.equal(res.statusCode, 302);
  assert.equal(res.headers.location, JULY);
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.deepStrictEqual(await engagementsOf(world, msgid), [
    { type: 'clicked', at: iso(T0 + 61_000), url: JULY, machine: false, ip: READER_IP, user_agent: CHROME },
  ]);
});

test('the mailto: link and the text alternative keep their original URLs', async (t) => {
  const world = await trackingWorld(t);
  const mail = await sentMail(world, await sendAndDeliver(world));
  assert.match(mail.html, /<a href="mailto:help@example\.com">write<\/a>/);
  assert.equal(mail.parsed.text, `Hi Ana, see July [${JULY}] or get help\n[${HELP}] or write [help@example.com].`);
});

test('a forged token gets 404 and records nothing, on the pixel and on a link', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  const forged = 'eyJhbGciOiJIUzI1NiJ9.eyJrIjoibyIsImEiOiJ4IiwibSI6InkiLCJleHAiOjQxMDI0NDQ4MDB9.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
  const pixel = await visit(world, 'GET', `/t/o/${forged}`);
  assert.equal(pixel.statusCode, 404);
  assert.deepStrictEqual(pixel.json(), { message: 'Not found' });
  const link = await visit(world, 'GET', `/t/c/${forged}`);
  assert.equal(link.statusCode, 404);
  assert.equal(link.headers.location, undefined);
  assert.deepStrictEqual(await engagementsOf(world, msgid), []);
});

test('a click token whose URL was changed gets 404: no redirect and no event', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  const { clicks } = await sentMail(world, msgid);
  const [header, payload, signature] = (clicks[0] ?? '').slice('/t/c/'.length).split('.');
  const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8'));
  assert.equal(claims.u, JULY);
  const redirected = Buffer.from(JSON.stringify({ ...claims, u: 'https://evil.example.net/' })).toString('base64url');

  const res = await visit(world, 'GET', `/t/c/${header}.${redirected}.${signature}`);
  assert.equal(res.statusCode, 404);
  assert.equal(res.headers.location, undefined);
  assert.match(String(res.headers['content-type']), /^text\/html/);
  assert.deepStrictEqual(await engagementsOf(world, msgid), []);
});

test('an open token is not accepted as a click token', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  const { pixel } = await sentMail(world, msgid);
  const res = await visit(world, 'GET', (pixel ?? '').replace('/t/o/', '/t/c/'));
  assert.equal(res.statusCode, 404);
  assert.deepStrictEqual(await engagementsOf(world, msgid), []);
});

test('a pixel a year after sending gets 404 and records nothing; a day before that it still counts', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  const { pixel } = await sentMail(world, msgid);
  world.clock.now += 364 * DAY;
  assert.equal((await visit(world, 'GET', pixel ?? '')).statusCode, 200);
  world.clock.now += DAY;
  assert.equal((await visit(world, 'GET', pixel ?? '')).statusCode, 404);
  assert.deepStrictEqual((await engagementsOf(world, msgid)).map((e) => e['at']), [iso(T0 + 1000 + 364 * DAY)]);
});

test('a tracked link 90 days after sending gets 404 and records nothing; a second before that it still redirects', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  const { clicks } = await sentMail(world, msgid);
  world.clock.now += 90 * DAY - 1000;
  assert.equal((await visit(world, 'GET', clicks[0] ?? '')).statusCode, 302);
  world.clock.now += 1000;
  const res = await visit(world, 'GET', clicks[0] ?? '');
  assert.deepStrictEqual([res.statusCode, res.headers.location], [404, undefined]);
  assert.deepStrictEqual((await engagementsOf(world, msgid)).map((e) => e['at']), [iso(T0 + 1000 + 90 * DAY - 1000)]);
});

test('with HERALD_TRACKED_LINK_DAYS=7 a tracked link stops redirecting after 7 days', async (t) => {
  const world = await trackingWorld(t, { HERALD_TRACKED_LINK_DAYS: '7' });
  const msgid = await sendAndDeliver(world);
  const { clicks } = await sentMail(world, msgid);
  world.clock.now += 7 * DAY - 1000;
  assert.equal((await visit(world, 'GET', clicks[0] ?? '')).statusCode, 302);
  world.clock.now += 1000;
  assert.equal((await visit(world, 'GET', clicks[0] ?? '')).statusCode, 404);
});

test('a click token moved to another message of the account gets 404: no redirect and no event', async (t) => {
  const world = await trackingWorld(t);
  const first = await sendAndDeliver(world);
  const second = await sendAndDeliver(world);
  const { clicks } = await sentMail(world, first);
  const [header, payload, signature] = (clicks[0] ?? '').slice('/t/c/'.length).split('.');
  const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8'));
  const moved = Buffer.from(JSON.stringify({ ...claims, m: second })).toString('base64url');

  const res = await visit(world, 'GET', `/t/c/${header}.${moved}.${signature}`);
  assert.deepStrictEqual([res.statusCode, res.headers.location], [404, undefined]);
  assert.deepStrictEqual([...await engagementsOf(world, first), ...await engagementsOf(world, second)], []);
});

/** A test-mode key of the world's account, made through /v1/api-keys. */
async function testKey(world: TrackingWorld): Promise<string> {
  const made = await post(world.service, '/v1/api-keys', world.account.apiKey, { name: 'CI', scopes: ['email'], mode: 'test' });
  assert.equal(made.statusCode, 201, made.body);
  return made.json().api_key;
}

test('a test key\'s email is not tracked: no pixel, and its links as written', async (t) => {
  const world = await trackingWorld(t);
  const res = await post(world.service, '/v1/email', await testKey(world), emailBody({ body: LINKS_HTML }));
  assert.equal(res.statusCode, 200, res.body);
  const msgid: string = res.json().to[0].msgid;
  world.clock.now += 1000;
  await world.service.worker.drain();

  const mail = await sentMail(world, msgid);
  assert.deepStrictEqual([mail.pixel, mail.clicks], [undefined, []]);
  assert.match(mail.html, /<a href="https:\/\/shop\.example\.com\/july\?utm=mail&amp;id=7">see July<\/a>/);
});

test('a click or open token of a test key\'s message neither redirects nor records', async (t) => {
  const world = await trackingWorld(t);
  const res = await post(world.service, '/v1/email', await testKey(world), emailBody({ body: LINKS_HTML }));
  const msgid: string = res.json().to[0].msgid;
  await world.service.worker.drain();
  // Tokens as herald signed them for test keys' messages before those went untracked.
  const tokens = trackingTokens(world.service.deps.signingSecret);
  const click = await tokens.sign({ kind: 'click', accountId: world.account.id, msgid, url: 'https://evil.example.net/' }, world.clock.now);
  const open = await tokens.sign({ kind: 'open', accountId: world.account.id, msgid }, world.clock.now);

  const followed = await visit(world, 'GET', `/t/c/${click}`);
  assert.deepStrictEqual([followed.statusCode, followed.headers.location], [404, undefined]);
  assert.equal((await visit(world, 'GET', `/t/o/${open}`)).statusCode, 404);
  assert.deepStrictEqual(await engagementsOf(world, msgid), []);
});

test('a link scanner\'s user agent is recorded as a machine click, and the link still redirects', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  const { clicks } = await sentMail(world, msgid);
  world.clock.now += 60_000;
  const res = await visit(world, 'GET', clicks[1] ?? '', { userAgent: 'Mozilla/5.0 (compatible; Proofpoint URL Defense)', ip: '198.51.100.20' });
  assert.equal(res.statusCode, 302);
  assert.deepStrictEqual(await engagementsOf(world, msgid), [
    { type: 'clicked', at: iso(T0 + 61_000), url: HELP, machine: true, machine_reason: 'security-scanner', ip: '198.51.100.20', user_agent: 'Mozilla/5.0 (compatible; Proofpoint URL Defense)' },
  ]);
});

test('a click within a second of delivery is a machine click', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  const { clicks } = await sentMail(world, msgid);
  world.clock.now += 400;
  await visit(world, 'GET', clicks[0] ?? '');
  assert.deepStrictEqual(await engagementsOf(world, msgid), [
    { type: 'clicked', at: iso(T0 + 1400), url: JULY, machine: true, machine_reason: 'quick', ip: READER_IP, user_agent: CHROME },
  ]);
});

test('two links of one message clicked in the same second: the second is a machine click', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  const { clicks } = await sentMail(world, msgid);
  world.clock.now += 60_000;
  await visit(world, 'GET', clicks[0] ?? '');
  world.clock.now += 200;
  await visit(world, 'GET', clicks[1] ?? '');
  assert.deepStrictEqual((await engagementsOf(world, msgid)).map((e) => [e['url'], e['machine'], e['machine_reason']]), [
    [JULY, false, undefined],
    [HELP, true, 'link-burst'],
  ]);
});

test('a HEAD request on a link redirects without a body and is recorded as a machine click', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  const { clicks } = await sentMail(world, msgid);
  world.clock.now += 60_000;
  const res = await visit(world, 'HEAD', clicks[0] ?? '');
  assert.equal(res.statusCode, 302);
  assert.equal(res.headers.location, JULY);
  assert.deepStrictEqual((await engagementsOf(world, msgid)).map((e) => [e['type'], e['machine'], e['machine_reason']]), [['clicked', true, 'head-request']]);
});

test('Apple Mail Privacy Protection\'s prefetch is recorded as a machine open', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  const { pixel } = await sentMail(world, msgid);
  world.clock.now += 5000;
  await visit(world, 'GET', pixel ?? '', { userAgent: 'Mozilla/5.0', ip: '17.58.101.4' });
  assert.deepStrictEqual(await engagementsOf(world, msgid), [
    { type: 'opened', at: iso(T0 + 6000), machine: true, machine_reason: 'apple-mail-privacy', ip: '17.58.101.4', user_agent: 'Mozilla/5.0' },
  ]);
});

test('an open through Gmail\'s image proxy is a person\'s open, noted as proxied', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  const { pixel } = await sentMail(world, msgid);
  world.clock.now += 60_000;
  const gmail = 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)';
  await visit(world, 'GET', pixel ?? '', { userAgent: gmail, ip: '66.249.84.1' });
  assert.deepStrictEqual(await engagementsOf(world, msgid), [
    { type: 'opened', at: iso(T0 + 61_000), machine: false, proxy: 'google', ip: '66.249.84.1', user_agent: gmail },
  ]);
});

test('after 100 opens of one message the pixel is still served but no more opens are recorded', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  const { pixel } = await sentMail(world, msgid);
  world.clock.now += 60_000;
  for (let i = 0; i < 101; i++) assert.equal((await visit(world, 'GET', pixel ?? '')).statusCode, 200);
  assert.equal((await engagementsOf(world, msgid)).length, 100);
});

test('a send with tracking off has no pixel and its links as written', async (t) => {
  const world = await trackingWorld(t);
  const mail = await sentMail(world, await sendAndDeliver(world, { tracking: { opens: false, clicks: false } }));
  assert.equal(mail.pixel, undefined);
  assert.deepStrictEqual(mail.clicks, []);
  assert.equal(mail.html, LINKS_HTML);
});

test('a send can track opens only: the pixel is there and the links are as written', async (t) => {
  const world = await trackingWorld(t);
  const mail = await sentMail(world, await sendAndDeliver(world, { tracking: { clicks: false } }));
  assert.notEqual(mail.pixel, undefined);
  assert.deepStrictEqual(mail.clicks, []);
  assert.match(mail.html, /<a href="https:\/\/shop\.example\.com\/july\?utm=mail&amp;id=7">see July<\/a>/);
});

test('an account whose operator turned tracking off sends without pixel or rewritten links, unless a send asks for them', async (t) => {
  const world = await trackingWorld(t);
  const patch = await world.service.http.inject({
    method: 'PATCH', url: `/admin/v1/accounts/${world.account.id}`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ tracking: { opens: false, clicks: false } }),
  });
  assert.equal(patch.statusCode, 200, patch.body);
  assert.deepStrictEqual(patch.json().tracking, { opens: false, clicks: false });

  const untracked = await sentMail(world, await sendAndDeliver(world));
  assert.equal(untracked.pixel, undefined);
  assert.equal(untracked.html, LINKS_HTML);

  const asked = await sentMail(world, await sendAndDeliver(world, { tracking: { opens: true } }));
  assert.notEqual(asked.pixel, undefined);
  assert.deepStrictEqual(asked.clicks, []);
});

test('the operator\'s tracking setting refuses anything but true or false', async (t) => {
  const world = await trackingWorld(t);
  const patch = (tracking: unknown) => world.service.http.inject({
    method: 'PATCH', url: `/admin/v1/accounts/${world.account.id}`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ tracking }),
  });
  const INVALID = 'Invalid request, a field has the wrong type or value';
  assert.deepStrictEqual((await patch({ opens: 'yes' })).json(), { message: INVALID, detail: 'tracking.opens: must be true or false' });
  assert.deepStrictEqual((await patch({ pixels: true })).json(), { message: INVALID, detail: 'tracking.pixels: unknown field' });
  assert.deepStrictEqual((await patch(true)).json(), { message: INVALID, detail: 'tracking: must be an object with opens and clicks set to true or false' });
});

test('a certified send has no pixel and no rewritten links', async (t) => {
  const world = await trackingWorld(t);
  const mail = await sentMail(world, await sendAndDeliver(world, { certified: true }));
  assert.equal(mail.pixel, undefined);
  assert.equal(mail.html, LINKS_HTML);
});

test('a text-only email has no tracking: its text is sent as written', async (t) => {
  const world = await trackingWorld(t);
  const text = 'Hi Ana, see https://shop.example.com/july';
  const mail = await sentMail(world, await sendAndDeliver(world, { body: text }));
  assert.equal(mail.parsed.html, false);
  assert.equal(mail.parsed.text, `${text}\n`);
});

test('every recipient of a send gets links and a pixel of their own message', async (t) => {
  const world = await trackingWorld(t);
  const res = await post(world.service, '/v1/email', world.account.apiKey, {
    to: [{ email: 'ana@example.org' }, { email: 'bob@example.org' }], from: { email: 'news@example.com', name: 'News' },
    replyTo: { email: 'help@example.com', name: 'Help' }, subject: 'July', body: LINKS_HTML,
  });
  const [ana, bob] = res.json().to.map((r: { msgid: string }) => r.msgid);
  world.clock.now += 1000;
  await world.service.worker.drain();
  world.clock.now += 60_000;
  await visit(world, 'GET', (await sentMail(world, bob)).clicks[0] ?? '');
  assert.deepStrictEqual(await engagementsOf(world, ana), []);
  assert.deepStrictEqual((await engagementsOf(world, bob)).map((e) => e['type']), ['clicked']);
});

test('a click reaches the account\'s webhook as email.clicked with its URL, machine flag and the message\'s fields', async (t) => {
  const world = await trackingWorld(t);
  const put = await world.service.http.inject({
    method: 'PUT', url: '/v1/webhooks', headers: { authorization: `Bearer ${world.account.apiKey}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ url: 'http://127.0.0.1:9/hook' }),
  });
  assert.equal(put.statusCode, 200, put.body);
  const msgid = await sendAndDeliver(world);
  const { clicks } = await sentMail(world, msgid);
  world.clock.now += 60_000;
  await visit(world, 'GET', clicks[0] ?? '');

  const auth = { authorization: `Bearer ${world.account.apiKey}` };
  const list = await world.service.http.inject({ method: 'GET', url: `/v1/webhooks/deliveries?msgid=${msgid}`, headers: auth });
  const clicked = list.json().data.find((d: { type: string }) => d.type === 'email.clicked');
  assert.ok(clicked, list.body);
  const details = await world.service.http.inject({ method: 'GET', url: `/v1/webhooks/deliveries/${clicked.id}`, headers: auth });
  assert.deepStrictEqual(details.json().payload, {
    type: 'email.clicked',
    timestamp: iso(T0 + 61_000),
    data: {
      url: JULY, machine: false, ip: READER_IP, user_agent: CHROME,
      msgid, account: world.account.id, channel: 'email', recipient: 'ana@example.org', family: 'transactional', tracking: { opens: true, clicks: true },
    },
  });
});
