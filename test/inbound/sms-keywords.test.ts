// What a person's SMS does to the account: STOP, START and HELP in their spellings, the
// opt-out kept in the consent ledger with its proof, the next send dropped and not billed,
// and a reply to a number several accounts share routed to the last one that wrote.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { receiveInbound } from '../../src/app/receive-inbound.ts';
import type { Service } from '../../src/service.ts';
import { ADMIN_TOKEN, get, keyWithScopes, openAccount, post, readAccount, startService, type TestAccount } from '../support/service.ts';

const SENDER = '+15550001111';
const PERSON = '+34612345678';

async function withSender(t: TestContext, senders: readonly string[] = [SENDER]): Promise<{ service: Service; account: TestAccount }> {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 100 });
  await setSenders(service, account.id, senders);
  await service.deps.db.updateTable('accounts').set({ webhook_url: 'https://hooks.example.com/herald' }).where('id', '=', account.id).execute();
  return { service, account };
}

const setSenders = (service: Service, accountId: string, senders: readonly string[]) =>
  service.deps.db.updateTable('accounts').set({ sms_senders: JSON.stringify(senders) }).where('id', '=', accountId).execute();

const smsFrom = (service: Service, text: string, from = PERSON, to = SENDER) =>
  receiveInbound(service.deps, { channel: 'sms', from, to, text, receivedAt: service.deps.clock() });

async function postedOfType(service: Service, accountId: string, type: string): Promise<Record<string, unknown>[]> {
  const rows = await service.deps.db.selectFrom('webhook_deliveries').select('payload').where('account_id', '=', accountId).where('type', '=', type).orderBy('id').execute();
  return rows.map((row) => (JSON.parse(row.payload) as { data: Record<string, unknown> }).data);
}

/** The SMS the service queued for `to`, as payload and status. */
async function smsTo(service: Service, accountId: string, to: string): Promise<{ text: string; from: string | undefined; status: string }[]> {
  const rows = await service.deps.db.selectFrom('messages').innerJoin('sends', 'sends.id', 'messages.send_id')
    .select(['sends.payload', 'messages.status']).where('messages.account_id', '=', accountId).where('messages.recipient', '=', to).orderBy('messages.id').execute();
  return rows.map((row) => {
    const payload = JSON.parse(row.payload) as { text: string; from?: string };
    return { text: payload.text, from: payload.from, status: row.status };
  });
}

for (const spelling of ['stop', ' Stop ', 'BAJA', 'baja', 'UNSUBSCRIBE']) {
  test(`${JSON.stringify(spelling)} opts the number out of the account's SMS from that sender`, async (t) => {
    const { service, account } = await withSender(t);
    const recorded = await smsFrom(service, spelling);
    assert.deepStrictEqual({ accountId: recorded.accountId, keyword: recorded.keyword, stored: recorded.stored }, { accountId: account.id, keyword: 'stop', stored: true });
    const consent = await get(service, `/v1/consent?address=${encodeURIComponent(PERSON)}`, account.apiKey);
    assert.equal(consent.statusCode, 200);
    assert.deepStrictEqual(consent.json().channels.sms, { state: 'opted_out', opted_out_of: [{ sender: SENDER, since: consent.json().history[0].at }] });
  });
}

test('a send to an opted-out number is answered as the interface answers, ends dropped, is not billed and posts sms.dropped', async (t) => {
  const { service, account } = await withSender(t);
  await smsFrom(service, 'STOP');
  const before = (await readAccount(service, account.id)).messagesLeft;
  const res = await post(service, '/v1/sms/send', account.apiKey, { message: 'Sale today', mobile_numbers: [PERSON, '+34600000001'] });
  assert.equal(res.statusCode, 200);
  const body = res.json();
  const [toOptedOut, toOther] = [body.messages[0].msgid as string, body.messages[1].msgid as string];
  assert.deepStrictEqual(body, {
    result: 'SMS queued for delivery', total_contacts: 2, total_messages_sent: 1, messages_left: before - 1,
    messages: [{ mobile_number: PERSON, msgid: toOptedOut }, { mobile_number: '+34600000001', msgid: toOther }],
  });
  const message = await get(service, `/v1/messages/${toOptedOut}`, account.apiKey);
  assert.equal(message.json().status, 'dropped');
  assert.equal((await readAccount(service, account.id)).messagesLeft, before - 1);
  const dropped = await postedOfType(service, account.id, 'sms.dropped');
  assert.deepStrictEqual(dropped.map((d) => [d['msgid'], d['recipient'], d['reason']]), [[toOptedOut, PERSON, 'opted_out']]);
});

test('STOP is confirmed by one SMS from the number written to, billed; a second STOP changes nothing and is not answered', async (t) => {
  const { service, account } = await withSender(t);
  const before = (await readAccount(service, account.id)).messagesLeft;
  const first = await smsFrom(service, 'STOP');
  const second = await smsFrom(service, 'stop');
  assert.equal(typeof first.replyId, 'string');
  assert.equal(second.replyId, null);
  assert.deepStrictEqual(await smsTo(service, account.id, PERSON), [
    { text: 'You have been unsubscribed and will receive no more messages from this number. Reply START to resubscribe.', from: SENDER, status: 'queued' },
  ]);
  assert.equal((await readAccount(service, account.id)).messagesLeft, before - 1);
  const ledger = await get(service, `/v1/consent?address=${encodeURIComponent(PERSON)}`, account.apiKey);
  assert.equal(ledger.json().history.length, 1);
});

test('START opts the number back in, is confirmed, and posts sms.opted_out then sms.opted_in', async (t) => {
  const { service, account } = await withSender(t);
  const stop = await smsFrom(service, 'STOP');
  const start = await smsFrom(service, 'Alta');
  assert.equal(start.keyword, 'start');
  const consent = (await get(service, `/v1/consent?address=${encodeURIComponent(PERSON)}`, account.apiKey)).json();
  assert.deepStrictEqual(consent.channels.sms, { state: 'opted_in', opted_out_of: [] });
  assert.deepStrictEqual(consent.history.map((h: Record<string, unknown>) => [h['change'], h['source'], h['keyword'], h['sender'], h['proof']]), [
    ['opted_in', 'keyword', 'Alta', SENDER, { inbound_id: start.id }],
    ['opted_out', 'keyword', 'STOP', SENDER, { inbound_id: stop.id }],
  ]);
  const out = await postedOfType(service, account.id, 'sms.opted_out');
  const back = await postedOfType(service, account.id, 'sms.opted_in');
  assert.deepStrictEqual([out.map((d) => [d['number'], d['sender'], d['keyword']]), back.map((d) => [d['number'], d['sender'], d['keyword']])], [
    [[PERSON, SENDER, 'STOP']], [[PERSON, SENDER, 'Alta']],
  ]);
  assert.deepStrictEqual((await smsTo(service, account.id, PERSON)).map((m) => m.text.slice(0, 25)), ['You have been unsubscribe', 'Alta confirmada. Responda']);
});

test('HELP is answered with the account\'s help text, set with PUT /v1/sms/keywords', async (t) => {
  const { service, account } = await withSender(t);
  const put = await service.http.inject({
    method: 'PUT', url: '/v1/sms/keywords', headers: { authorization: `Bearer ${account.apiKey}` },
    payload: { keywords: { stop: ['parar'] }, texts: { help: 'Acme: reply STOP to opt out. Help at acme.example' } },
  });
  assert.equal(put.statusCode, 200);
  assert.deepStrictEqual(put.json().keywords, { stop: ['PARAR'], start: [], help: [] });
  assert.equal((await smsFrom(service, 'ayuda')).keyword, 'help');
  assert.deepStrictEqual(await smsTo(service, account.id, PERSON), [{ text: 'Acme: reply STOP to opt out. Help at acme.example', from: SENDER, status: 'queued' }]);
  assert.equal((await smsFrom(service, 'Parar')).keyword, 'stop');
});

test('an SMS is posted as sms.received with its exact fields, and listed by GET /v1/inbound', async (t) => {
  const { service, account } = await withSender(t);
  const recorded = await receiveInbound(service.deps, { channel: 'sms', from: PERSON, to: SENDER, text: '¿Abrís el domingo?', receivedAt: Date.parse('2026-11-28T09:00:00Z') });
  const [posted] = await postedOfType(service, account.id, 'sms.received');
  const expected = { id: recorded.id, account: account.id, channel: 'sms', from: PERSON, to: SENDER, text: '¿Abrís el domingo?', received_at: '2026-11-28T09:00:00.000Z' };
  assert.deepStrictEqual(posted, expected);
  const listed = await get(service, `/v1/inbound?channel=sms&from=${encodeURIComponent(PERSON)}`, account.apiKey);
  assert.deepStrictEqual(listed.json(), { data: [expected], next_cursor: null });
  assert.deepStrictEqual((await get(service, `/v1/inbound/${recorded.id}`, account.apiKey)).json(), expected);
});

test('a key without the sms scope sees no SMS in GET /v1/inbound, and cannot ask for them', async (t) => {
  const { service, account } = await withSender(t);
  const recorded = await smsFrom(service, 'hola');
  const emailOnly = await keyWithScopes(service, account.id, ['email']);
  assert.deepStrictEqual((await get(service, '/v1/inbound', emailOnly)).json(), { data: [], next_cursor: null });
  assert.equal((await get(service, `/v1/inbound/${recorded.id}`, emailOnly)).statusCode, 404);
  const asked = await get(service, '/v1/inbound?channel=sms', emailOnly);
  assert.deepStrictEqual([asked.statusCode, asked.json()], [401, { message: 'API key not authorized.' }]);
});

test('a reply to a number two accounts share goes to the last account that wrote to the person; one nobody wrote to is unrouted', async (t) => {
  const { service, account: first } = await withSender(t);
  const second = await openAccount(service, { name: 'globex', messagesLeft: 100 });
  await setSenders(service, second.id, [SENDER]);
  await post(service, '/v1/sms/send', first.apiKey, { message: 'from acme', mobile_numbers: [PERSON] });
  await post(service, '/v1/sms/send', second.apiKey, { message: 'from globex', mobile_numbers: [PERSON] });
  assert.equal((await smsFrom(service, 'Which shop is this?')).accountId, second.id);
  const stranger = await smsFrom(service, 'hello?', '+34699999999');
  assert.equal(stranger.accountId, null);
  assert.deepStrictEqual((await get(service, '/v1/inbound', first.apiKey)).json(), { data: [], next_cursor: null });
  const unrouted = await get(service, '/admin/v1/unrouted-inbound', ADMIN_TOKEN);
  assert.deepStrictEqual(unrouted.json().messages.map((m: Record<string, unknown>) => [m['id'], m['from'], m['to'], m['text']]), [[stranger.id, '+34699999999', SENDER, 'hello?']]);
});

test('the consent ledger exports as CSV and JSON, entry for entry', async (t) => {
  const { service, account } = await withSender(t);
  const stop = await smsFrom(service, 'STOP');
  const change = await post(service, '/v1/consent', account.apiKey, { channel: 'email', address: 'Ana@Example.com', change: 'opted_out' });
  assert.equal(change.statusCode, 201);
  assert.deepStrictEqual((await get(service, '/v1/suppressions', account.apiKey)).json().data.map((d: Record<string, unknown>) => [d['email'], d['reason']]), [['ana@example.com', 'unsubscribed']]);
  const entries = (await get(service, '/v1/consent/export?format=json', account.apiKey)).json() as Record<string, unknown>[];
  assert.deepStrictEqual(entries.map((e) => [e['channel'], e['address'], e['sender'], e['change'], e['source'], e['keyword']]), [
    ['email', 'ana@example.com', '', 'opted_out', 'api', null],
    ['sms', PERSON, SENDER, 'opted_out', 'keyword', 'STOP'],
  ]);
  assert.deepStrictEqual(Object.keys(entries[0]?.['proof'] as object).sort(), ['ip', 'request_id', 'user_agent']);
  const csv = await get(service, '/v1/consent/export', account.apiKey);
  assert.equal(csv.headers['content-type'], 'text/csv; charset=utf-8');
  assert.deepStrictEqual(csv.body.split('\r\n'), [
    'id,at,channel,address,sender,change,source,keyword,proof',
    `${entries[0]?.['id']},${entries[0]?.['at']},email,ana@example.com,,opted_out,api,,"${JSON.stringify(entries[0]?.['proof']).replaceAll('"', '""')}"`,
    `${entries[1]?.['id']},${entries[1]?.['at']},sms,'${PERSON},${SENDER.replace('+', "'+")},opted_out,keyword,STOP,"{""inbound_id"":""${stop.id}""}"`,
    '',
  ]);
});
