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
  const hello = { subject: 'Hello', sender: 'news@example.com', campaign: null, tag: null };
  assert.deepStrictEqual(res.json(), {
    data: [
      { msgid: second, channel: 'email', status: 'queued', recipient: 'bo@example.org', created_at: '2026-05-01T08:00:01.000Z', updated_at: '2026-05-01T08:00:01.000Z', ...hello },
      { msgid: first, channel: 'email', status: 'queued', recipient: 'ana@example.org', created_at: '2026-05-01T08:00:00.000Z', updated_at: '2026-05-01T08:00:00.000Z', ...hello },
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
    ['status=lost', 'status must be one of queued, sending, deferred, sent, delivered, failed, bounced, dropped, scheduled, cancelled'],
    ['channel=fax', 'channel must be email, sms or whatsapp'],
    ['since=yesterday', 'since must be an ISO 8601 time or epoch milliseconds'],
    ['until=tomorrow', 'until must be an ISO 8601 time or epoch milliseconds'],
    ['cursor=abc', 'cursor must be the next_cursor of a previous page'],
    ['limit=0', 'limit must be a whole number from 1 to 500'],
    ['limit=501', 'limit must be a whole number from 1 to 500'],
    ['status=sent&status=queued', 'status must be one of queued, sending, deferred, sent, delivered, failed, bounced, dropped, scheduled, cancelled'],
  ];
  for (const [query, detail] of cases) {
    const res = await get(service, `/v1/messages?${query}`, account.apiKey);
    assert.equal(res.statusCode, 400, query);
    assert.deepStrictEqual(res.json(), { message: 'Invalid request, a field has the wrong type or value', detail }, query);
  }
});

/** Every page of `query` with `limit`, followed by next_cursor to the end: the msgids in order. */
async function allPages(service: Service, account: TestAccount, query: string, limit: number): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const res = await get(service, `/v1/messages?limit=${limit}${query}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`, account.apiKey);
    assert.equal(res.statusCode, 200, res.body);
    const page = res.json() as { data: { msgid: string }[]; next_cursor: string | null };
    seen.push(...page.data.map((m) => m.msgid));
    cursor = page.next_cursor;
  } while (cursor !== null);
  return seen;
}

test('paging across messages made in the same millisecond gives each once, by id within the millisecond, the same every time', async (t) => {
  let now = T0;
  const service = await startService(t, { clock: () => now });
  const account = await openAccount(service);
  const older = await sendEmails(service, account, ['a1@example.org', 'a2@example.org', 'a3@example.org', 'a4@example.org', 'a5@example.org']);
  now += 1;
  const newer = await sendEmails(service, account, ['b1@example.org', 'b2@example.org', 'b3@example.org', 'b4@example.org']);
  const expected = [...[...newer].sort().reverse(), ...[...older].sort().reverse()];
  for (const limit of [1, 2, 3, 4, 5, 9]) {
    assert.deepStrictEqual(await allPages(service, account, '', limit), expected, `pages of ${limit}`);
  }
  // A date window pages the same way: the first millisecond only.
  assert.deepStrictEqual(await allPages(service, account, `&since=${T0}&until=${T0 + 1}`, 2), [...older].sort().reverse());
});

test('the log is in creation time order even where ids are not, and a cursor carries the time', async (t) => {
  let now = T0;
  const service = await startService(t, { clock: () => now });
  const account = await openAccount(service);
  const [late] = await sendEmails(service, account, ['late@example.org']);
  // A message made after it (a larger id) but stamped earlier, as a second process's clock may.
  now -= 60_000;
  const [early] = await sendEmails(service, account, ['early@example.org']);
  const first = await get(service, '/v1/messages?limit=1', account.apiKey);
  assert.deepStrictEqual(first.json().data.map((m: { msgid: string }) => m.msgid), [late]);
  assert.equal(first.json().next_cursor, `${T0}_${late}`);
  assert.deepStrictEqual(await allPages(service, account, '', 1), [late, early]);
});

test('a cursor that is a bare msgid (as herald gave before) still pages on from that message', async (t) => {
  let now = T0;
  const service = await startService(t, { clock: () => now });
  const account = await openAccount(service);
  const ids: string[] = [];
  for (const email of ['a@example.org', 'b@example.org', 'c@example.org']) {
    ids.push(...await sendEmails(service, account, [email]));
    now += 1000;
  }
  const res = await get(service, `/v1/messages?cursor=${ids[2]}`, account.apiKey);
  assert.equal(res.statusCode, 200, res.body);
  assert.deepStrictEqual(res.json().data.map((m: { msgid: string }) => m.msgid), [ids[1], ids[0]]);
});

test('a cursor naming no message of the account is a 400', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await get(service, '/v1/messages?cursor=01890a5d-ac96-774b-bcce-b302099a8057', account.apiKey);
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Invalid request, a field has the wrong type or value', detail: 'cursor must be the next_cursor of a previous page' });
});
