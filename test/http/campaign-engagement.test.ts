// What a campaign's messages do once made: personalised content with the unsubscribe
// link, ordinary messages (GET /v1/messages/:msgid, the recipients listing), scoped
// unsubscribes (the campaign's lists only; every list when asked; no suppression, so
// transactional email still goes), complaints (every list, suppressed for the next
// campaign), webhook events with the campaign's fields, and statistics equal to the
// events a receiver verified; the `campaign` tag of POST /v1/email counted the same way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { recordInboundReport } from '../../src/app/record-inbound-report.ts';
import { readInboundReport } from '../../src/inbound/report-reader.ts';
import { emailBody, get, post } from '../support/service.ts';
import { UNTAGGED_HORIZON_MS, verpOf } from '../support/verp.ts';
import { iso, sentMail, visit, type TrackingWorld } from '../support/sent-mail.ts';
import { startWebhookReceiver, subscribe } from '../peers/webhook-receiver.ts';
import {
  action, campaignBody, campaignWorld, createCampaign, makeContact, makeList, runCampaigns, type CampaignWorld,
} from '../support/campaigns.ts';

const LINKS = '<html><body><p>Hi {{contact.name}}, <a href="https://shop.example.com/july">see July</a> or '
  + '<a href="https://shop.example.com/help">get help</a>. <a href="{{unsubscribe_url}}">Leave</a></p></body></html>';

interface Sent { readonly w: CampaignWorld; readonly news: string; readonly other: string; readonly campaign: string; readonly msgids: Record<string, string> }

/** ana and bob on News (bob also on Other), a campaign to News run to the capture transport. */
async function sentCampaign(t: Parameters<typeof campaignWorld>[0], body: Record<string, unknown> = {}, before?: (w: CampaignWorld) => Promise<void>, start?: number): Promise<Sent> {
  const w = await campaignWorld(t, start === undefined ? {} : { start });
  await before?.(w);
  const news = await makeList(w, 'News');
  const other = await makeList(w, 'Other');
  await makeContact(w, 'ana@example.org', { name: 'Ana', attributes: { city: 'Lima', plan: { tier: 'gold' } }, lists: [news] });
  await makeContact(w, 'bob@example.org', { name: 'Bob', lists: [news, other] });
  const campaign = await createCampaign(w, campaignBody([news], body));
  assert.equal((await action(w, campaign, 'send')).statusCode, 200);
  await runCampaigns(w);
  const recipients = await get(w.service, `/v1/campaigns/${campaign}/recipients`, w.account.apiKey);
  const msgids = Object.fromEntries(recipients.json().recipients.map((r: { email: string; msgid: string }) => [r.email, r.msgid]));
  return { w, news, other, campaign, msgids };
}

const tracking = (w: CampaignWorld): TrackingWorld => w;
const HOUR = 3_600_000;

async function subscriptionsOf(w: CampaignWorld, email: string): Promise<{ list_id: string; status: string }[]> {
  const res = await get(w.service, `/v1/contacts?email=${encodeURIComponent(email)}`, w.account.apiKey);
  return (await get(w.service, `/v1/contacts/${res.json().contacts[0].contact_id}`, w.account.apiKey)).json().lists;
}

test('each contact gets its own message: subject, body and attributes filled in, with the unsubscribe footer and headers', async (t) => {
  const { w, msgids } = await sentCampaign(t, { body: '<p>Hi {{contact.name}} ({{contact.email}}) of {{contact.attributes.city}}, tier {{contact.attributes.plan.tier}}{{#if contact.attributes.city}}!{{/if}}</p>' });
  const mail = await sentMail(tracking(w), msgids['ana@example.org'] ?? '');
  assert.equal(mail.parsed.subject, 'News for Ana');
  assert.ok(mail.html.startsWith('<p>Hi Ana (ana@example.org) of Lima, tier gold!</p><p style="font-size:12px;color:#666666">You receive this email because you subscribed. <a href="https://herald.example.com/u/'), mail.html);
  assert.match(mail.html, new RegExp(`href="https://herald.example.com${mail.unsubscribe.replaceAll('.', '\\.')}"`));
  assert.match(mail.raw, /\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n/);
  const message = await get(w.service, `/v1/messages/${msgids['bob@example.org']}`, w.account.apiKey);
  assert.deepStrictEqual([message.statusCode, message.json().status, message.json().recipient], [200, 'sent', 'bob@example.org']);
});

test('the recipients listing pages through the campaign\'s messages with their msgids and statuses', async (t) => {
  const { w, campaign, msgids } = await sentCampaign(t);
  const first = await get(w.service, `/v1/campaigns/${campaign}/recipients?limit=1`, w.account.apiKey);
  assert.equal(first.statusCode, 200, first.body);
  assert.deepStrictEqual(first.json().recipients.map((r: { email: string; msgid: string; status: string }) => [r.email, r.msgid, r.status]), [['ana@example.org', msgids['ana@example.org'], 'sent']]);
  const second = await get(w.service, `/v1/campaigns/${campaign}/recipients?limit=1&cursor=${first.json().next_cursor}`, w.account.apiKey);
  assert.deepStrictEqual([second.json().recipients.map((r: { email: string }) => r.email), second.json().next_cursor], [['bob@example.org'], null]);
  const none = await get(w.service, `/v1/campaigns/${campaign}/recipients?status=bounced`, w.account.apiKey);
  assert.deepStrictEqual(none.json(), { recipients: [], next_cursor: null });
});

test('a one-click unsubscribe leaves the campaign\'s lists only, with a consent record, and transactional email still goes', async (t) => {
  const { w, news, other, msgids } = await sentCampaign(t);
  const mail = await sentMail(tracking(w), msgids['bob@example.org'] ?? '');
  const res = await visit(tracking(w), 'POST', mail.unsubscribe, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'List-Unsubscribe=One-Click' });
  assert.deepStrictEqual([res.statusCode, res.body], [200, 'Unsubscribed\n']);
  assert.deepStrictEqual(await subscriptionsOf(w, 'bob@example.org'), [{ list_id: news, status: 'unsubscribed' }, { list_id: other, status: 'confirmed' }].sort((a, b) => a.list_id.localeCompare(b.list_id)));
  const contact = (await get(w.service, '/v1/contacts?email=bob@example.org', w.account.apiKey)).json().contacts[0].contact_id;
  const consent = (await get(w.service, `/v1/contacts/${contact}`, w.account.apiKey)).json().consent.at(-1);
  assert.deepStrictEqual(consent, { list_id: news, status: 'unsubscribed', source: 'unsubscribe', at: iso(w.clock.now), detail: { msgid: msgids['bob@example.org'] } });
  const transactional = await post(w.service, '/v1/email', w.account.apiKey, emailBody({ to: [{ email: 'bob@example.org' }] }));
  const sent = await get(w.service, `/v1/messages/${transactional.json().to[0].msgid}`, w.account.apiKey);
  assert.equal(sent.json().status, 'queued');
  const again = await visit(tracking(w), 'POST', mail.unsubscribe, { payload: '' });
  assert.equal(again.statusCode, 200);
  const events = (await get(w.service, `/v1/messages/${msgids['bob@example.org']}`, w.account.apiKey)).json().events.filter((e: { type: string }) => e.type === 'unsubscribed');
  assert.equal(events.length, 1);
});

test('the unsubscribe page offers every list, and asking for it leaves them all', async (t) => {
  const { w, news, other, msgids } = await sentCampaign(t);
  const mail = await sentMail(tracking(w), msgids['bob@example.org'] ?? '');
  const page = await visit(tracking(w), 'GET', mail.unsubscribe);
  assert.match(page.body, /<input type="checkbox" name="scope" value="all"> Also leave every other list of Example News/);
  const res = await visit(tracking(w), 'POST', mail.unsubscribe, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'List-Unsubscribe=One-Click&via=page&scope=all' });
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual((await subscriptionsOf(w, 'bob@example.org')).map((s) => s.status), ['unsubscribed', 'unsubscribed']);
  assert.deepStrictEqual(new Set((await subscriptionsOf(w, 'bob@example.org')).map((s) => s.list_id)), new Set([news, other]));
});

test('a complaint leaves every list and suppresses the address, so the next campaign drops it', async (t) => {
  const { w, news, msgids } = await sentCampaign(t);
  const raw = readFileSync(new URL('../fixtures/inbound/arf-abuse.eml', import.meta.url), 'utf8')
    .replaceAll('{{VERP}}', verpOf(w.service, msgids['ana@example.org'] ?? '')).replaceAll('{{MSGID}}', msgids['ana@example.org'] ?? '').replaceAll('{{BOUNCE_DOMAIN}}', w.service.deps.bounceDomain)
    .replaceAll('{{MESSAGE_ID_HOST}}', 'herald.example.com').replaceAll('{{RECIPIENT}}', 'ana@example.org');
  const recorded = await recordInboundReport({ ...w.service.deps, untaggedHorizonMs: UNTAGGED_HORIZON_MS }, { mailFrom: 'abusedesk@example.net', rcptTo: `fbl@${w.service.deps.bounceDomain}` }, raw, await readInboundReport(Buffer.from(raw)));
  assert.equal(recorded.effect, 'complained');
  assert.deepStrictEqual(await subscriptionsOf(w, 'ana@example.org'), [{ list_id: news, status: 'unsubscribed' }]);
  const next = await createCampaign(w, campaignBody([news], { name: 'August' }));
  // ana is no longer on the list; put her back through the API: the suppression still holds.
  await makeContact(w, 'ana@example.org', { lists: [news] });
  const quote = await get(w.service, `/v1/campaigns/${next}/quote`, w.account.apiKey);
  assert.deepStrictEqual([quote.json().recipients, quote.json().excluded.suppressed], [1, 1]);
  await action(w, next, 'send');
  await runCampaigns(w);
  const recipients = (await get(w.service, `/v1/campaigns/${next}/recipients`, w.account.apiKey)).json().recipients;
  assert.deepStrictEqual(recipients.map((r: { email: string; status: string }) => [r.email, r.status]), [['ana@example.org', 'dropped'], ['bob@example.org', 'sent']]);
});

test('the campaign\'s webhook events carry campaign_id, campaign_name and list_ids, and its stats equal what the receiver verified', async (t) => {
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>> | undefined;
  const { w, news, campaign, msgids } = await sentCampaign(t, { body: LINKS }, async (world) => {
    receiver = await startWebhookReceiver(t);
    await subscribe(world.service, world.account.apiKey, receiver);
  }, Date.now());
  assert.ok(receiver);
  const tw = tracking(w);
  const ana = await sentMail(tw, msgids['ana@example.org'] ?? '');
  const bob = await sentMail(tw, msgids['bob@example.org'] ?? '');
  w.clock.now += 60_000;
  await visit(tw, 'GET', ana.pixel ?? '');
  await visit(tw, 'GET', ana.clicks[0] ?? '');
  await visit(tw, 'GET', ana.clicks[0] ?? '');
  await visit(tw, 'GET', bob.pixel ?? '', { userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)', ip: '17.58.0.1' });
  await visit(tw, 'POST', bob.unsubscribe, { payload: '' });
  await w.service.webhooks.drain();
  const events = receiver.received.map((r) => r.payload);
  assert.ok(events.every((e) => e.data['campaign_id'] === campaign && e.data['campaign_name'] === 'July news' && JSON.stringify(e.data['list_ids']) === JSON.stringify([news]) && e.data['family'] === 'campaign'));
  const count = (type: string, keep: (d: Readonly<Record<string, unknown>>) => boolean = () => true) => events.filter((e) => e.type === type && keep(e.data)).length;
  const stats = await get(w.service, `/v1/campaigns/${campaign}/stats`, w.account.apiKey);
  assert.equal(stats.statusCode, 200, stats.body);
  assert.deepStrictEqual(stats.json(), {
    recipients: 2, sent: count('email.sent'), delivered: count('email.delivered'), bounced: { hard: 0, soft: 0 }, failed: 0, dropped: count('email.dropped'),
    opened: { unique: 1, human: count('email.opened', (d) => d['machine'] === false), machine: count('email.opened', (d) => d['machine'] === true) },
    clicked: { unique: 1, human: count('email.clicked', (d) => d['machine'] === false), by_url: [{ url: 'https://shop.example.com/july', clicks: count('email.clicked') }] },
    unsubscribed: count('email.unsubscribed'), complained: 0,
  });
  assert.deepStrictEqual([stats.json().sent, stats.json().opened, stats.json().clicked.human, stats.json().unsubscribed], [2, { unique: 1, human: 1, machine: 1 }, 2, 1]);
  const timeline = await get(w.service, `/v1/campaigns/${campaign}/stats/timeline?interval=hour`, w.account.apiKey);
  assert.deepStrictEqual(timeline.json(), { interval: 'hour', points: [{ at: iso(w.clock.now - (w.clock.now % HOUR)), opened: 1, clicked: 2 }] });
  assert.equal(receiver.rejected.length, 0);
});

test('the campaign field of POST /v1/email is stored, and its tag has the same counts', async (t) => {
  const w = await campaignWorld(t);
  for (const to of ['ana@example.org', 'bob@example.org']) {
    assert.equal((await post(w.service, '/v1/email', w.account.apiKey, emailBody({ to: [{ email: to }], campaign: 'spring' }))).statusCode, 200);
  }
  await post(w.service, '/v1/email', w.account.apiKey, emailBody({ campaign: 'autumn' }));
  await w.service.worker.drain();
  const res = await get(w.service, '/v1/campaigns/tags/spring/stats', w.account.apiKey);
  assert.equal(res.statusCode, 200, res.body);
  assert.deepStrictEqual(res.json(), {
    recipients: 2, sent: 2, delivered: 0, bounced: { hard: 0, soft: 0 }, failed: 0, dropped: 0,
    opened: { unique: 0, human: 0, machine: 0 }, clicked: { unique: 0, human: 0, by_url: [] }, unsubscribed: 0, complained: 0,
  });
  assert.equal((await get(w.service, '/v1/campaigns/tags/none/stats', w.account.apiKey)).json().recipients, 0);
});
