// GET /v1/messages finds a message by what it was (issue 24): subject, recipient
// prefix, metadata, campaign, tag; shows its subject, sender, campaign and tag; and
// counts the matching messages when asked, capped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { action, campaignBody, campaignWorld, createCampaign, makeContact, makeList, runCampaigns } from '../support/campaigns.ts';
import { emailBody, get, openAccount, post, smsBody, startService, type TestAccount } from '../support/service.ts';
import type { Service } from '../../src/service.ts';
import { countMessages } from '../../src/store/messages.ts';
import { listAccountMessages } from '../../src/app/get-message.ts';

const T0 = Date.parse('2026-05-01T08:00:00.000Z');
const DAY = 24 * 3600 * 1000;

async function sendEmail(service: Service, account: TestAccount, overrides: Record<string, unknown>): Promise<string> {
  const res = await post(service, '/v1/email', account.apiKey, emailBody(overrides));
  assert.equal(res.statusCode, 200, res.body);
  return res.json().to[0].msgid;
}

/** Three emails a second apart and one SMS, in an account of their own. */
async function world(t: Parameters<typeof startService>[0]) {
  let now = T0;
  const service = await startService(t, { clock: () => now });
  const account = await openAccount(service);
  const invoice = await sendEmail(service, account, { to: [{ email: 'ana.lopez@example.org' }], subject: 'Your invoice #1042', metadata: { order: '1042', plan: 'pro' } });
  now += 1000;
  const welcome = await sendEmail(service, account, { to: [{ email: 'anabel@example.net' }], subject: 'Welcome aboard', campaign: 'onboarding', metadata: { order: '7' } });
  now += 1000;
  const reminder = await sendEmail(service, account, { to: [{ email: 'bo@example.org' }], subject: 'INVOICE reminder', from: { email: 'billing@example.com', name: 'Billing' } });
  now += 1000;
  const sms = await post(service, '/v1/sms/send', account.apiKey, smsBody({ mobile_numbers: ['+34600111222'] }));
  assert.equal(sms.statusCode, 200, sms.body);
  return { service, account, invoice, welcome, reminder, tick: (ms: number) => { now += ms; } };
}

const ids = async (service: Service, account: TestAccount, query: string): Promise<string[]> => {
  const res = await get(service, `/v1/messages?${query}`, account.apiKey);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data.map((m: { msgid: string }) => m.msgid);
};

test('a subject search finds the emails whose subject contains the text, whatever its case', async (t) => {
  const w = await world(t);
  assert.deepStrictEqual(await ids(w.service, w.account, 'subject=invoice'), [w.reminder, w.invoice]);
});

test('a recipient prefix finds every recipient that starts with it and no other', async (t) => {
  const w = await world(t);
  assert.deepStrictEqual(await ids(w.service, w.account, 'recipient_prefix=ana'), [w.welcome, w.invoice]);
  assert.deepStrictEqual(await ids(w.service, w.account, 'recipient_prefix=ana.'), [w.invoice]);
});

test('LIKE\'s wildcards in a recipient prefix are plain characters', async (t) => {
  const w = await world(t);
  assert.deepStrictEqual(await ids(w.service, w.account, `recipient_prefix=${encodeURIComponent('a%')}`), []);
  assert.deepStrictEqual(await ids(w.service, w.account, `recipient_prefix=${encodeURIComponent('_na')}`), []);
});

test('a metadata key and value find the sends that carried them', async (t) => {
  const w = await world(t);
  assert.deepStrictEqual(await ids(w.service, w.account, 'metadata_key=order&metadata_value=1042'), [w.invoice]);
  assert.deepStrictEqual(await ids(w.service, w.account, 'metadata_key=plan&metadata_value=free'), []);
});

test('a tag finds the sends that carried it as their campaign field', async (t) => {
  const w = await world(t);
  assert.deepStrictEqual(await ids(w.service, w.account, 'tag=onboarding'), [w.welcome]);
});

test('filters combine: a subject search within one status and channel', async (t) => {
  const w = await world(t);
  assert.deepStrictEqual(await ids(w.service, w.account, 'subject=invoice&channel=email&status=queued&recipient_prefix=bo'), [w.reminder]);
});

test('each row says its subject, sender and tag; an SMS has no subject', async (t) => {
  const w = await world(t);
  const res = await get(w.service, '/v1/messages?limit=2', w.account.apiKey);
  const [sms, reminder] = res.json().data;
  assert.deepStrictEqual({ subject: sms.subject, sender: sms.sender, tag: sms.tag, campaign: sms.campaign }, { subject: null, sender: null, tag: null, campaign: null });
  assert.deepStrictEqual({ subject: reminder.subject, sender: reminder.sender, tag: reminder.tag }, { subject: 'INVOICE reminder', sender: 'billing@example.com', tag: null });
});

test('the message page shows its metadata and tag', async (t) => {
  const w = await world(t);
  const res = await get(w.service, `/v1/messages/${w.welcome}`, w.account.apiKey);
  assert.deepStrictEqual(
    { subject: res.json().subject, sender: res.json().sender, tag: res.json().tag, metadata: res.json().metadata },
    { subject: 'Welcome aboard', sender: 'news@example.com', tag: 'onboarding', metadata: { order: '7' } },
  );
});

test('include_total counts every matching message, not only the page', async (t) => {
  const w = await world(t);
  const res = await get(w.service, '/v1/messages?channel=email&limit=1&include_total=true', w.account.apiKey);
  assert.deepStrictEqual({ rows: res.json().data.length, total: res.json().total, capped: res.json().total_capped }, { rows: 1, total: 3, capped: false });
});

test('without include_total the page carries no count', async (t) => {
  const w = await world(t);
  const res = await get(w.service, '/v1/messages', w.account.apiKey);
  assert.equal('total' in res.json(), false);
});

test('a subject search looks at the last 31 days unless a window is given', async (t) => {
  const w = await world(t);
  w.tick(32 * DAY);
  assert.deepStrictEqual(await ids(w.service, w.account, 'subject=invoice'), []);
  assert.deepStrictEqual(await ids(w.service, w.account, `subject=invoice&since=${T0}&until=${T0 + DAY}`), [w.reminder, w.invoice]);
});

test('a subject search over more than 31 days is a 400 that says so', async (t) => {
  const w = await world(t);
  const res = await get(w.service, `/v1/messages?subject=invoice&since=${T0 - 40 * DAY}&until=${T0}`, w.account.apiKey);
  assert.deepStrictEqual({ status: res.statusCode, body: res.json() }, {
    status: 400, body: { message: 'Invalid request, a field has the wrong type or value', detail: 'since: a subject, metadata or tag search looks at 31 days at most' },
  });
});

test('a metadata key without a value is a 400', async (t) => {
  const w = await world(t);
  const res = await get(w.service, '/v1/messages?metadata_key=order', w.account.apiKey);
  assert.deepStrictEqual({ status: res.statusCode, detail: res.json().detail }, { status: 400, detail: 'metadata_key and metadata_value go together' });
});

test('another account\'s messages are never found by subject', async (t) => {
  const w = await world(t);
  const other = await openAccount(w.service);
  assert.deepStrictEqual(await ids(w.service, other, 'subject=invoice&include_total=true'), []);
});

test('a campaign\'s messages are found by its id and name it', async (t) => {
  const w = await campaignWorld(t);
  const list = await makeList(w, 'Customers');
  await makeContact(w, 'ana@example.org', { name: 'Ana', attributes: { city: 'Lima' }, lists: [list] });
  const id = await createCampaign(w, campaignBody([list]));
  assert.equal((await action(w, id, 'send')).statusCode, 200);
  await runCampaigns(w);
  await post(w.service, '/v1/email', w.account.apiKey, emailBody());
  const res = await get(w.service, `/v1/messages?campaign_id=${id}&include_total=true`, w.account.apiKey);
  assert.deepStrictEqual(res.json().data.map((m: Record<string, unknown>) => ({ recipient: m.recipient, subject: m.subject, campaign: m.campaign })), [
    { recipient: 'ana@example.org', subject: 'News for Ana', campaign: { id, name: 'July news' } },
  ]);
  assert.equal(res.json().total, 1);
});

test('counting stops past its cap and says there are more', async (t) => {
  const w = await world(t);
  const counted = await countMessages(w.service.deps.db, w.account.id, { channels: ['email', 'sms', 'whatsapp'] }, 2);
  assert.deepStrictEqual(counted, { count: 2, capped: true });
});

test('a search reads a bounded number of candidates a page, and next_cursor goes on from the last one read', async (t) => {
  const w = await world(t);
  const all = ['email', 'sms', 'whatsapp'] as const;
  const page = async (cursor?: string) => {
    const result = await listAccountMessages(w.service.deps, w.account.id, { subject: 'invoice', include_total: 'true', ...(cursor === undefined ? {} : { cursor }) }, all, 2);
    assert.ok(result.ok);
    return result.value;
  };
  const first = await page();
  assert.deepStrictEqual({ rows: first.data.map((m) => m.msgid), total: first.total, capped: first.total_capped }, { rows: [w.reminder], total: 1, capped: true });
  const second = await page(first.next_cursor ?? '');
  assert.deepStrictEqual(second.data.map((m) => m.msgid), [w.invoice]);
  const third = await page(second.next_cursor ?? '');
  assert.deepStrictEqual({ rows: third.data, next: third.next_cursor }, { rows: [], next: null });
});
