// /v1/campaigns: drafts (create, read, change, delete) with the texts of POST /v1/email
// for the content fields, the quote, the send (debited whole or refused whole), the
// life of a sent campaign (pause, resume, cancel with its refund, 409 in a wrong
// status), test sends and follow-ups; isolation between accounts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { listLedger } from '../../src/store/ledger.ts';
import { get, openAccount, post, readAccount, send } from '../support/service.ts';
import { iso, T0 } from '../support/sent-mail.ts';
import {
  action, campaignBody, campaignOf, campaignWorld, createCampaign, makeContact, makeList, runCampaigns, type CampaignWorld,
} from '../support/campaigns.ts';

const AT = iso(T0);
const INVALID = 'Invalid request, a field has the wrong type or value';

async function audience(w: CampaignWorld): Promise<{ list: string; other: string }> {
  const list = await makeList(w, 'News');
  const other = await makeList(w, 'Other');
  await makeContact(w, 'ana@example.org', { name: 'Ana', attributes: { city: 'Lima' }, lists: [list] });
  await makeContact(w, 'bob@example.org', { name: 'Bob', attributes: { city: 'Quito' }, lists: [list, other] });
  await makeContact(w, 'cid@example.org', { lists: [list] });
  return { list, other };
}

test('creating a campaign answers 201 with the draft as stored', async (t) => {
  const w = await campaignWorld(t);
  const list = await makeList(w, 'News');
  const res = await post(w.service, '/v1/campaigns', w.account.apiKey, campaignBody([list], { messages_per_minute: 600, send_at: '2030-01-02T09:00:00Z' }));
  assert.equal(res.statusCode, 201, res.body);
  const id = res.json().campaign_id;
  assert.deepStrictEqual(res.json(), {
    campaign_id: id, name: 'July news', status: 'draft', subject: 'News for {{contact.name}}',
    from: { email: 'news@example.com', name: 'Example News' }, replyTo: { email: 'help@example.com', name: 'Help' },
    body: '<html><body><p>Hi {{contact.name}} from {{contact.attributes.city}}</p></body></html>', template_id: null, variables: {},
    lists: [list], exclude_lists: [], filter: null, send_at: '2030-01-02T09:00:00.000Z', messages_per_minute: 600,
    messages_per_minute_per_domain: 600, follows: null,
    recipients: 0, created_at: AT, updated_at: AT, started_at: null, finished_at: null,
  });
});

test('the content fields are refused with the texts of POST /v1/email', async (t) => {
  const w = await campaignWorld(t);
  const list = await makeList(w, 'News');
  const cases: [Record<string, unknown>, Record<string, unknown>][] = [
    [{ from: undefined }, { message: 'Missing from address!' }],
    [{ from: { email: 'nope', name: 'X' } }, { message: 'The from address has the wrong structure!', error: [{ email: 'nope' }] }],
    [{ replyTo: undefined }, { message: 'Missing replyTo!' }],
    [{ replyTo: { email: 'help@example.com' } }, { message: 'Missing replyTo name!' }],
    [{ subject: ' ' }, { message: 'Subject missing or empty!' }],
    [{ body: '' }, { message: 'Body missing or empty!' }],
    [{ body: undefined, template_id: 'no-such-template' }, { message: 'Could not find template' }],
    [{ body: 'Hi {{#each x}}{{/each}}' }, { message: 'Incorrect variable syntax', detail: 'text: line 1, column 4: {{#each x}} is not a placeholder herald knows' }],
  ];
  for (const [overrides, expected] of cases) {
    const res = await post(w.service, '/v1/campaigns', w.account.apiKey, campaignBody([list], overrides));
    assert.equal(res.statusCode, 400, JSON.stringify(overrides));
    assert.deepStrictEqual(res.json(), expected, JSON.stringify(overrides));
  }
});

test('herald\'s own fields are refused with a detail naming the field', async (t) => {
  const w = await campaignWorld(t);
  const list = await makeList(w, 'News');
  const cases: [Record<string, unknown>, string][] = [
    [{ name: '' }, 'name must be 1 to 200 characters'],
    [{ lists: [] }, 'lists must have 1 to 50 items'],
    [{ messages_per_minute: 0 }, 'messages_per_minute must be an integer from 1 to 1000000'],
    [{ messages_per_minute_per_domain: 2.5 }, 'messages_per_minute_per_domain must be an integer from 1 to 1000000'],
    [{ send_at: 'tomorrow' }, 'send_at must be an ISO-8601 time'],
    [{ filter: { field: 'name', gt: 3 } }, 'filter.gt must be text for name'],
    [{ colour: 'red' }, 'colour is not a field of this request'],
  ];
  for (const [overrides, detail] of cases) {
    const res = await post(w.service, '/v1/campaigns', w.account.apiKey, campaignBody([list], overrides));
    assert.equal(res.statusCode, 400, JSON.stringify(overrides));
    assert.deepStrictEqual(res.json(), { message: INVALID, detail }, JSON.stringify(overrides));
  }
});

test('a list of another account, or a sender domain not verified, is refused', async (t) => {
  const w = await campaignWorld(t);
  const list = await makeList(w, 'News');
  const stranger = await openAccount(w.service);
  const theirs = (await post(w.service, '/v1/lists', stranger.apiKey, { name: 'Theirs', optin: 'single' })).json().list_id;
  const foreign = await post(w.service, '/v1/campaigns', w.account.apiKey, campaignBody([list], { exclude_lists: [theirs] }));
  assert.equal(foreign.statusCode, 404);
  assert.deepStrictEqual(foreign.json(), { message: 'Not found', detail: 'exclude_lists[0] is not a list of this account' });
  const unverified = await post(w.service, '/v1/campaigns', w.account.apiKey, campaignBody([list], { from: { email: 'news@elsewhere.com', name: 'X' } }));
  assert.equal(unverified.statusCode, 401);
  assert.deepStrictEqual(unverified.json(), { message: 'Domain not permitted. err 2' });
});

test('campaigns are listed newest first, by status when asked, and only the account\'s own', async (t) => {
  const w = await campaignWorld(t);
  const { list } = await audience(w);
  const first = await createCampaign(w, campaignBody([list], { name: 'First' }));
  const second = await createCampaign(w, campaignBody([list], { name: 'Second' }));
  assert.equal((await action(w, first, 'send')).statusCode, 200);
  const all = await get(w.service, '/v1/campaigns', w.account.apiKey);
  assert.deepStrictEqual(all.json().campaigns.map((c: { name: string; status: string }) => [c.name, c.status]), [['Second', 'draft'], ['First', 'running']]);
  const drafts = await get(w.service, '/v1/campaigns?status=draft', w.account.apiKey);
  assert.deepStrictEqual(drafts.json().campaigns.map((c: { campaign_id: string }) => c.campaign_id), [second]);
  const bad = await get(w.service, '/v1/campaigns?status=done', w.account.apiKey);
  assert.deepStrictEqual([bad.statusCode, bad.json()], [400, { message: INVALID, detail: 'status must be one of: draft, scheduled, running, paused, finished, cancelled' }]);
  const stranger = await openAccount(w.service);
  assert.deepStrictEqual((await get(w.service, '/v1/campaigns', stranger.apiKey)).json(), { campaigns: [] });
  assert.equal((await get(w.service, `/v1/campaigns/${first}`, stranger.apiKey)).statusCode, 404);
  assert.equal((await action({ ...w, account: stranger }, first, 'pause')).statusCode, 404);
});

test('a draft changes by PATCH and is deleted by DELETE; a sent campaign is not deleted', async (t) => {
  const w = await campaignWorld(t);
  const { list, other } = await audience(w);
  const id = await createCampaign(w, campaignBody([list]));
  const patched = await send(w.service, 'PATCH', `/v1/campaigns/${id}`, w.account.apiKey, { subject: 'Hello {{contact.name}}', exclude_lists: [other] });
  assert.equal(patched.statusCode, 200, patched.body);
  assert.deepStrictEqual([patched.json().subject, patched.json().exclude_lists, patched.json().body], ['Hello {{contact.name}}', [other], campaignBody([list])['body']]);
  const refused = await send(w.service, 'PATCH', `/v1/campaigns/${id}`, w.account.apiKey, { subject: '' });
  assert.deepStrictEqual([refused.statusCode, refused.json()], [400, { message: 'Subject missing or empty!' }]);
  assert.equal((await action(w, id, 'send')).statusCode, 200);
  const deleted = await send(w.service, 'DELETE', `/v1/campaigns/${id}`, w.account.apiKey);
  assert.deepStrictEqual([deleted.statusCode, deleted.json()], [409, { message: 'The campaign cannot do this in its current status', status: 'running' }]);
  const draft = await createCampaign(w, campaignBody([list]));
  assert.equal((await send(w.service, 'DELETE', `/v1/campaigns/${draft}`, w.account.apiKey)).statusCode, 204);
  assert.equal((await get(w.service, `/v1/campaigns/${draft}`, w.account.apiKey)).statusCode, 404);
});

test('the quote counts who would get a message and why the others would not', async (t) => {
  const w = await campaignWorld(t);
  const { list, other } = await audience(w);
  const dee = await makeContact(w, 'dee@example.org', { lists: [list] });
  await send(w.service, 'PATCH', `/v1/contacts/${dee}`, w.account.apiKey, { unsubscribe: [list] });
  await makeContact(w, 'eve@example.org', { name: 'Eve', attributes: { city: 'Lima' }, lists: [list] });
  await post(w.service, '/v1/suppressions', w.account.apiKey, { email: 'eve@example.org' });
  const id = await createCampaign(w, campaignBody([list], { exclude_lists: [other], filter: { field: 'name', exists: true } }));
  const res = await get(w.service, `/v1/campaigns/${id}/quote`, w.account.apiKey);
  assert.equal(res.statusCode, 200, res.body);
  // ana and eve match; eve is suppressed; bob is excluded; cid has no name; dee unsubscribed.
  assert.deepStrictEqual(res.json(), {
    recipients: 1, excluded: { unsubscribed: 1, unconfirmed: 0, suppressed: 1, excluded_lists: 1, filtered: 1 }, messages: 1, messages_left: 1000,
  });
});

test('the send debits one message per recipient in one ledger entry and the runner makes one message each', async (t) => {
  const w = await campaignWorld(t);
  const { list } = await audience(w);
  const id = await createCampaign(w, campaignBody([list]));
  const res = await action(w, id, 'send');
  assert.equal(res.statusCode, 200, res.body);
  assert.deepStrictEqual([res.json().status, res.json().recipients, res.json().started_at], ['running', 3, AT]);
  assert.equal((await readAccount(w.service, w.account.id)).messagesLeft, 1000 - 3);
  await runCampaigns(w);
  const after = await campaignOf(w, id);
  // The default per-domain pace (600 a minute) spaces the three example.org messages
  // 100 ms apart: two go at the runner's second step, and the campaign ends at its third.
  assert.deepStrictEqual([after['status'], after['finished_at']], ['finished', iso(T0 + 2000)]);
  const ledger = (await listLedger(w.service.deps.db, w.account.id)).filter((e) => e.reason !== 'account.open');
  assert.deepStrictEqual(ledger.map((e) => [e.reason, e.messagesDelta]), [['campaign.send', -3]]);
  const messages = await get(w.service, '/v1/messages', w.account.apiKey);
  assert.deepStrictEqual(messages.json().data.map((m: { recipient: string; status: string }) => [m.recipient, m.status]).sort(),
    [['ana@example.org', 'sent'], ['bob@example.org', 'sent'], ['cid@example.org', 'sent']]);
  const again = await action(w, id, 'send');
  assert.deepStrictEqual([again.statusCode, again.json()], [409, { message: 'The campaign cannot do this in its current status', status: 'finished' }]);
});

test('an account that cannot pay for the whole audience is refused whole and the campaign stays a draft', async (t) => {
  const w = await campaignWorld(t, { messagesLeft: 2 });
  const { list } = await audience(w);
  const id = await createCampaign(w, campaignBody([list]));
  const res = await action(w, id, 'send');
  assert.deepStrictEqual([res.statusCode, res.json()], [401, { message: 'No messages left, please buy more messages' }]);
  assert.deepStrictEqual([(await campaignOf(w, id))['status'], (await readAccount(w.service, w.account.id)).messagesLeft], ['draft', 2]);
});

test('a campaign whose audience holds nobody is refused', async (t) => {
  const w = await campaignWorld(t);
  const list = await makeList(w, 'Empty');
  const id = await createCampaign(w, campaignBody([list]));
  const res = await action(w, id, 'send');
  assert.deepStrictEqual([res.statusCode, res.json()], [400, { message: 'The campaign has no recipients' }]);
});

test('a campaign with send_at waits scheduled until its time, then runs', async (t) => {
  const w = await campaignWorld(t);
  const { list } = await audience(w);
  const id = await createCampaign(w, campaignBody([list], { send_at: iso(T0 + 60_000) }));
  assert.equal((await action(w, id, 'send')).json().status, 'scheduled');
  await runCampaigns(w);
  assert.equal((await campaignOf(w, id))['status'], 'scheduled');
  w.clock.now = T0 + 60_000;
  await runCampaigns(w);
  const after = await campaignOf(w, id);
  assert.deepStrictEqual([after['status'], after['started_at']], ['finished', iso(T0 + 60_000)]);
});

test('pause, resume and cancel move the campaign, and a move its status does not allow answers 409 with it', async (t) => {
  const w = await campaignWorld(t);
  const { list } = await audience(w);
  const id = await createCampaign(w, campaignBody([list]));
  const early = await action(w, id, 'pause');
  assert.deepStrictEqual([early.statusCode, early.json()], [409, { message: 'The campaign cannot do this in its current status', status: 'draft' }]);
  await action(w, id, 'send');
  assert.equal((await action(w, id, 'pause')).json().status, 'paused');
  await runCampaigns(w);
  assert.deepStrictEqual((await get(w.service, '/v1/messages', w.account.apiKey)).json().data, []);
  const twice = await action(w, id, 'pause');
  assert.deepStrictEqual([twice.statusCode, twice.json().status], [409, 'paused']);
  assert.equal((await action(w, id, 'resume')).json().status, 'running');
  await runCampaigns(w);
  assert.equal((await campaignOf(w, id))['status'], 'finished');
  assert.deepStrictEqual([(await action(w, id, 'cancel')).statusCode, (await action(w, id, 'resume')).statusCode], [409, 409]);
});

test('cancelling before any message was made refunds the whole debit in the ledger', async (t) => {
  const w = await campaignWorld(t);
  const { list } = await audience(w);
  const id = await createCampaign(w, campaignBody([list], { send_at: iso(T0 + 3_600_000) }));
  await action(w, id, 'send');
  const res = await action(w, id, 'cancel');
  assert.deepStrictEqual([res.json().status, res.json().finished_at], ['cancelled', AT]);
  assert.equal((await readAccount(w.service, w.account.id)).messagesLeft, 1000);
  const ledger = (await listLedger(w.service.deps.db, w.account.id)).filter((e) => e.reason !== 'account.open');
  assert.deepStrictEqual(ledger.map((e) => [e.reason, e.messagesDelta]), [['campaign.send', -3], ['refund', 3]]);
  w.clock.now += 3_600_000;
  await runCampaigns(w);
  assert.deepStrictEqual((await get(w.service, '/v1/messages', w.account.apiKey)).json().data, []);
});

test('a contact who leaves the lists after the send gets nothing and is refunded when the walk ends', async (t) => {
  const w = await campaignWorld(t);
  const { list } = await audience(w);
  const cid = (await get(w.service, '/v1/contacts?email=cid@example.org', w.account.apiKey)).json().contacts[0].contact_id;
  const id = await createCampaign(w, campaignBody([list]));
  await action(w, id, 'send');
  await send(w.service, 'PATCH', `/v1/contacts/${cid}`, w.account.apiKey, { unsubscribe: [list] });
  await runCampaigns(w);
  assert.equal((await readAccount(w.service, w.account.id)).messagesLeft, 1000 - 2);
  const ledger = (await listLedger(w.service.deps.db, w.account.id)).filter((e) => e.reason !== 'account.open');
  assert.deepStrictEqual(ledger.map((e) => [e.reason, e.messagesDelta]), [['campaign.send', -3], ['refund', 1]]);
});

test('a test send goes to the given addresses, personalised, billed as ordinary emails and marked as a test', async (t) => {
  const w = await campaignWorld(t);
  const { list } = await audience(w);
  const id = await createCampaign(w, campaignBody([list]));
  const res = await action(w, id, 'test', { emails: ['ana@example.org', 'boss@example.com'] });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepStrictEqual(res.json().to.map((m: { email: string }) => m.email), ['ana@example.org', 'boss@example.com']);
  assert.equal((await readAccount(w.service, w.account.id)).messagesLeft, 1000 - 2);
  await w.service.worker.drain();
  const raw = await get(w.service, `/v1/messages/${res.json().to[0].msgid}/raw`, w.account.apiKey);
  assert.match(raw.body, /Subject: News for Ana/);
  assert.equal((await campaignOf(w, id))['status'], 'draft');
  const tooMany = await action(w, id, 'test', { emails: Array.from({ length: 11 }, (_, i) => `t${i}@example.com`) });
  assert.deepStrictEqual([tooMany.statusCode, tooMany.json()], [400, { message: INVALID, detail: 'emails must have 1 to 10 items' }]);
});

test('a follow-up targets the contacts who did not open, with the same content and lists', async (t) => {
  const w = await campaignWorld(t);
  const { list } = await audience(w);
  const id = await createCampaign(w, campaignBody([list]));
  const early = await action(w, id, 'resend', { to: 'not_opened' });
  assert.deepStrictEqual([early.statusCode, early.json().status], [409, 'draft']);
  await action(w, id, 'send');
  await runCampaigns(w);
  const res = await action(w, id, 'resend', { to: 'not_opened', subject: 'Did you see this?' });
  assert.equal(res.statusCode, 201, res.body);
  assert.deepStrictEqual(
    [res.json().status, res.json().subject, res.json().lists, res.json().filter, res.json().follows, res.json().name],
    ['draft', 'Did you see this?', [list], { not_opened: id }, { campaign_id: id, to: 'not_opened' }, 'July news (not opened)'],
  );
  const quote = await get(w.service, `/v1/campaigns/${res.json().campaign_id}/quote`, w.account.apiKey);
  assert.equal(quote.json().recipients, 3);
});

test('another account\'s campaign has no stats, timeline, recipients or quote, and bad report queries are refused', async (t) => {
  const w = await campaignWorld(t);
  const { list } = await audience(w);
  const id = await createCampaign(w, campaignBody([list]));
  const stranger = await openAccount(w.service);
  for (const path of ['stats', 'stats/timeline', 'recipients', 'quote']) {
    const res = await get(w.service, `/v1/campaigns/${id}/${path}`, stranger.apiKey);
    assert.deepStrictEqual([res.statusCode, res.json()], [404, { message: 'Not found' }], path);
  }
  const interval = await get(w.service, `/v1/campaigns/${id}/stats/timeline?interval=week`, w.account.apiKey);
  assert.deepStrictEqual([interval.statusCode, interval.json()], [400, { message: INVALID, detail: 'interval must be one of: hour, day' }]);
  const limit = await get(w.service, `/v1/campaigns/${id}/recipients?limit=0`, w.account.apiKey);
  assert.deepStrictEqual([limit.statusCode, limit.json()], [400, { message: INVALID, detail: 'limit must be 1 to 1000' }]);
  const status = await get(w.service, `/v1/campaigns/${id}/recipients?status=lost`, w.account.apiKey);
  assert.deepStrictEqual([status.statusCode, status.json()], [400, { message: INVALID, detail: 'status must be a message status' }]);
});
