// GET /v1/messages: the account's messages newest first, filtered by status,
// channel, time and recipient, one page at a time with a keyset cursor.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from '../../src/service.ts';
import { emailBody, get, openAccount, post, smsBody, startService, type TestAccount } from '../support/service.ts';

const T0 = Date.parse('2026-05-01T08:00:00.000Z');

async function sendEmails(service: Service, account: TestAccount, recipients: readonly string[]): Promise<string[]> {
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ to: recipients.map((email) => ({ email })) }));
  assert.equal(res.statusCode, 200);
  return res.json().to.map((r: { msgid: string }) => r.msgid);
}

test('lists the account\'s messages newest first with their status and times', async (t) => {
  let now = T0;
  const service = await startService(t, { clock: () => now });
  const account = await openAccount(service);
  const [first] = await sendEmails(service, account, ['ana@example.org']);
  now += 1000;
  const [second] = await sendEmails(service, account, ['bo@example.org']);

  const res = await get(service, '/v1/messages', account.apiKey);
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), {
    data: [
      { msgid: second, channel: 'email', status: 'queued', recipient: 'bo@example.org', created_at: '2026-05-01T08:00:01.000Z', updated_at: '2026-05-01T08:00:01.000Z' },
      { msgid: first, channel: 'email', status: 'queued', recipient: 'ana@example.org', created_at: '2026-05-01T08:00:00.000Z', updated_at: '2026-05-01T08:00:00.000Z' },
    ],
    next_cursor: null,
  });
});

test('pages with next_cursor until the last page, without repeating or skipping a message', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const sent = await sendEmails(service, account, ['a@example.org', 'b@example.org', 'c@example.org', 'd@example.org', 'e@example.org']);

  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await get(service, `/v1/messages?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`, account.apiKey);
    assert.equal(res.statusCode, 200);
    const page = res.json();
    seen.push(...page.data.map((m: { msgid: string }) => m.msgid));
    cursor = page.next_cursor;
    pages += 1;
  } while (cursor !== null);
  assert.equal(pages, 3);
  assert.deepStrictEqual(seen, [...sent].reverse());
});

test('filters by channel, status, recipient, since and until', async (t) => {
  let now = T0;
  const service = await startService(t, { clock: () => now });
  const account = await openAccount(service);
  const [early] = await sendEmails(service, account, ['ana@example.org']);
  now += 60_000;
  const [late] = await sendEmails(service, account, ['bo@example.org']);
  const sms = await post(service, '/v1/sms/send', account.apiKey, smsBody());
  assert.equal(sms.statusCode, 200);
  await service.worker.drain();

  const ids = async (query: string): Promise<string[]> => {
    const res = await get(service, `/v1/messages?${query}`, account.apiKey);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data.map((m: { msgid: string }) => m.msgid);
  };
  assert.deepStrictEqual(await ids('channel=email'), [late, early]);
  assert.deepStrictEqual(await ids('channel=sms&status=sent'), [sms.json().messages[0].msgid]);
  assert.deepStrictEqual(await ids('status=queued'), []);
  assert.deepStrictEqual(await ids('recipient=ana@example.org'), [early]);
  assert.deepStrictEqual(await ids('channel=email&since=2026-05-01T08:00:30.000Z'), [late]);
  assert.deepStrictEqual(await ids(`channel=email&since=${T0 + 60_000}`), [late]);
  assert.deepStrictEqual(await ids('channel=email&until=2026-05-01T08:00:30.000Z'), [early]);
  assert.deepStrictEqual(await ids(`channel=email&since=${T0}&until=${T0 + 60_000}`), [early]);
});

test('never shows another account\'s messages', async (t) => {
  const service = await startService(t);
  const mine = await openAccount(service);
  const theirs = await openAccount(service, { name: 'other' });
  await sendEmails(service, theirs, ['ana@example.org']);

  const res = await get(service, '/v1/messages', mine.apiKey);
  assert.deepStrictEqual(res.json(), { data: [], next_cursor: null });
});

test('a malformed filter is a 400 naming the parameter', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const cases: [string, string][] = [
    ['status=lost', 'status must be one of queued, sending, deferred, sent, delivered, failed, bounced, dropped'],
    ['channel=fax', 'channel must be email, sms or whatsapp'],
    ['since=yesterday', 'since must be an ISO 8601 time or epoch milliseconds'],
    ['until=tomorrow', 'until must be an ISO 8601 time or epoch milliseconds'],
    ['cursor=abc', 'cursor must be the next_cursor of a previous page'],
    ['limit=0', 'limit must be a whole number from 1 to 500'],
    ['limit=501', 'limit must be a whole number from 1 to 500'],
    ['status=sent&status=queued', 'status must be one of queued, sending, deferred, sent, delivered, failed, bounced, dropped'],
  ];
  for (const [query, detail] of cases) {
    const res = await get(service, `/v1/messages?${query}`, account.apiKey);
    assert.equal(res.statusCode, 400, query);
    assert.deepStrictEqual(res.json(), { message: 'Invalid request, a field has the wrong type or value', detail }, query);
  }
});
