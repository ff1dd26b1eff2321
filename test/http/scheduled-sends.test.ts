// Scheduled sends (README "Scheduled sends"): send_at on the three sends, the `scheduled`
// message released at its time, cancelled (refunded) or moved while it waits.
// Runs on SQLite, and on PostgreSQL through test/run-postgres.ts.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { listLedger } from '../../src/store/ledger.ts';
import { readQueueDepths } from '../../src/store/queue-depth.ts';
import { addWhatsappTemplate, emailBody, get, openAccount, post, readAccount, send, smsBody, startService } from '../support/service.ts';

const T0 = Date.parse('2026-06-01T09:00:00.000Z');
const HOUR = 3600_000;

/** A service whose clock (the worker's too) the test moves. */
async function clocked(t: TestContext) {
  let now = T0;
  const service = await startService(t, { clock: () => now });
  const account = await openAccount(service, { messagesLeft: 10, balance: 10_000, whatsappPrice: 500 });
  return { service, account, setNow: (ms: number) => { now = ms; } };
}

const iso = (ms: number): string => new Date(ms).toISOString();

test('an SMS with send_at an hour ahead is answered as today and billed at once', async (t) => {
  const { service, account } = await clocked(t);
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ send_at: '2026-06-01T10:00:00Z' }));
  assert.equal(res.statusCode, 200);
  const body = res.json();
  assert.deepStrictEqual(body, {
    result: 'SMS queued for delivery', total_contacts: 1, total_messages_sent: 1, messages_left: 9,
    messages: [{ mobile_number: '+5215512345678', msgid: body.messages[0].msgid }],
  });
  assert.equal((await readAccount(service, account.id)).messagesLeft, 9);
});

test('a scheduled SMS is shown as scheduled with its time and its sms.scheduled step', async (t) => {
  const { service, account } = await clocked(t);
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ send_at: '2026-06-01T11:30:00+02:00' }));
  const msgid = res.json().messages[0].msgid as string;
  const view = (await get(service, `/v1/messages/${msgid}`, account.apiKey)).json();
  assert.equal(view.status, 'scheduled');
  assert.equal(view.send_at, '2026-06-01T09:30:00.000Z');
  assert.deepStrictEqual(view.events, [
    { type: 'queued', at: iso(T0) },
    { type: 'scheduled', at: iso(T0), send_at: '2026-06-01T09:30:00.000Z' },
  ]);
});

test('a scheduled SMS is not sent before its time and is sent once its time comes', async (t) => {
  const { service, account, setNow } = await clocked(t);
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ send_at: '2026-06-01T10:00:00Z' }));
  const msgid = res.json().messages[0].msgid as string;
  setNow(T0 + HOUR - 1);
  await service.worker.drain();
  assert.equal((await get(service, `/v1/messages/${msgid}`, account.apiKey)).json().status, 'scheduled');
  setNow(T0 + HOUR);
  await service.worker.drain();
  assert.equal((await get(service, `/v1/messages/${msgid}`, account.apiKey)).json().status, 'sent');
});

test('a send_at more than 72 hours ahead is refused with 400 and nothing is billed', async (t) => {
  const { service, account } = await clocked(t);
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ send_at: iso(T0 + 72 * HOUR + 1000) }));
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Invalid request, a field has the wrong type or value', detail: 'send_at must be at most 72 hours ahead' });
  assert.equal((await readAccount(service, account.id)).messagesLeft, 10);
});

test('a send_at exactly 72 hours ahead is accepted', async (t) => {
  const { service, account } = await clocked(t);
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ send_at: iso(T0 + 72 * HOUR) }));
  assert.equal(res.statusCode, 200);
});

test('an email send_at without a UTC offset is refused with 400 naming the format', async (t) => {
  const { service, account } = await clocked(t);
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ send_at: '2026-06-01T10:00:00' }));
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), {
    message: 'Invalid request, a field has the wrong type or value',
    detail: 'send_at must be an ISO 8601 date and time with a UTC offset or Z, e.g. 2026-05-01T09:30:00Z',
  });
});

test('a send_at of a day that does not exist is refused with 400', async (t) => {
  const { service, account } = await clocked(t);
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ send_at: '2026-06-31T10:00:00Z' }));
  assert.equal(res.statusCode, 400);
});

test('a send_at in the past sends at once: the message is queued, not scheduled', async (t) => {
  const { service, account } = await clocked(t);
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ send_at: iso(T0 - 60_000) }));
  const view = (await get(service, `/v1/messages/${res.json().messages[0].msgid}`, account.apiKey)).json();
  assert.equal(view.status, 'queued');
  assert.equal(view.send_at, undefined);
});

test('every recipient of a scheduled email is scheduled', async (t) => {
  const { service, account } = await clocked(t);
  const res = await post(service, '/v1/email', account.apiKey, emailBody({
    to: [{ email: 'ana@example.org' }, { email: 'bob@example.org' }], send_at: '2026-06-01T10:00:00Z',
  }));
  const statuses = [];
  for (const { msgid } of res.json().to) statuses.push((await get(service, `/v1/messages/${msgid}`, account.apiKey)).json().status);
  assert.deepStrictEqual(statuses, ['scheduled', 'scheduled']);
});

test('cancelling a scheduled SMS answers 200 with what was refunded', async (t) => {
  const { service, account } = await clocked(t);
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ message: 'a'.repeat(161), send_at: '2026-06-01T10:00:00Z' }));
  const msgid = res.json().messages[0].msgid as string;
  const cancelled = await send(service, 'DELETE', `/v1/messages/${msgid}/schedule`, account.apiKey);
  assert.equal(cancelled.statusCode, 200);
  assert.deepStrictEqual(cancelled.json(), { msgid, status: 'cancelled', refunded: { messages: 2, balance: 0 } });
});

test('cancelling a scheduled SMS gives its messages back with a refund ledger entry', async (t) => {
  const { service, account } = await clocked(t);
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ message: 'a'.repeat(161), send_at: '2026-06-01T10:00:00Z' }));
  await send(service, 'DELETE', `/v1/messages/${res.json().messages[0].msgid}/schedule`, account.apiKey);
  assert.equal((await readAccount(service, account.id)).messagesLeft, 10);
  const ledger = (await listLedger(service.deps.db, account.id)).map((e) => [e.reason, e.messagesDelta, e.balanceDelta]);
  assert.deepStrictEqual(ledger.slice(-2), [['sms.send', -2, 0], ['refund', 2, 0]]);
});

test('cancelling a scheduled WhatsApp message gives its price back to the balance', async (t) => {
  const { service, account } = await clocked(t);
  const template = await addWhatsappTemplate(service, account.id);
  const res = await post(service, '/v1/whatsapp/sendTemplateMessage', account.apiKey, {
    destination: '5215512345678', templateId: template.id, params: ['Ana', '1234'], send_at: '2026-06-01T10:00:00Z',
  });
  assert.deepStrictEqual(res.json(), { result: 'WhatsApp message queued for delivery', current_balance: 0.95, msgid: res.json().msgid });
  const cancelled = await send(service, 'DELETE', `/v1/messages/${res.json().msgid}/schedule`, account.apiKey);
  assert.deepStrictEqual(cancelled.json().refunded, { messages: 0, balance: 0.05 });
  assert.equal((await readAccount(service, account.id)).balance, 10_000);
  const ledger = (await listLedger(service.deps.db, account.id)).map((e) => [e.reason, e.messagesDelta, e.balanceDelta]);
  assert.deepStrictEqual(ledger.slice(-2), [['whatsapp.send', 0, -500], ['refund', 0, 500]]);
});

test('a cancelled message is never sent, and says so with its sms.cancelled step', async (t) => {
  const { service, account, setNow } = await clocked(t);
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ send_at: '2026-06-01T10:00:00Z' }));
  const msgid = res.json().messages[0].msgid as string;
  setNow(T0 + 60_000);
  await send(service, 'DELETE', `/v1/messages/${msgid}/schedule`, account.apiKey);
  setNow(T0 + 2 * HOUR);
  await service.worker.drain();
  const view = (await get(service, `/v1/messages/${msgid}`, account.apiKey)).json();
  assert.equal(view.status, 'cancelled');
  assert.deepStrictEqual(view.events.at(-1), { type: 'cancelled', at: iso(T0 + 60_000), refunded: true });
});

test('cancelling twice answers 409 with the status cancelled and refunds once', async (t) => {
  const { service, account } = await clocked(t);
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ send_at: '2026-06-01T10:00:00Z' }));
  const msgid = res.json().messages[0].msgid as string;
  await send(service, 'DELETE', `/v1/messages/${msgid}/schedule`, account.apiKey);
  const again = await send(service, 'DELETE', `/v1/messages/${msgid}/schedule`, account.apiKey);
  assert.equal(again.statusCode, 409);
  assert.deepStrictEqual(again.json(), { message: 'The message is not scheduled', status: 'cancelled' });
  assert.equal((await readAccount(service, account.id)).messagesLeft, 10);
});

test('cancelling a message that was sent answers 409 with the status sent', async (t) => {
  const { service, account, setNow } = await clocked(t);
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ send_at: '2026-06-01T10:00:00Z' }));
  const msgid = res.json().messages[0].msgid as string;
  setNow(T0 + HOUR);
  await service.worker.drain();
  const cancelled = await send(service, 'DELETE', `/v1/messages/${msgid}/schedule`, account.apiKey);
  assert.equal(cancelled.statusCode, 409);
  assert.deepStrictEqual(cancelled.json(), { message: 'The message is not scheduled', status: 'sent' });
  assert.equal((await readAccount(service, account.id)).messagesLeft, 9);
});

test('cancelling a message sent without send_at answers 409 with the status queued', async (t) => {
  const { service, account } = await clocked(t);
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody());
  const cancelled = await send(service, 'DELETE', `/v1/messages/${res.json().messages[0].msgid}/schedule`, account.apiKey);
  assert.deepStrictEqual([cancelled.statusCode, cancelled.json()], [409, { message: 'The message is not scheduled', status: 'queued' }]);
});

test('another account\'s scheduled message is 404 to cancel and to move, and stays scheduled', async (t) => {
  const { service, account } = await clocked(t);
  const other = await openAccount(service, { name: 'other' });
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ send_at: '2026-06-01T10:00:00Z' }));
  const msgid = res.json().messages[0].msgid as string;
  const cancelled = await send(service, 'DELETE', `/v1/messages/${msgid}/schedule`, other.apiKey);
  const moved = await send(service, 'PATCH', `/v1/messages/${msgid}/schedule`, other.apiKey, { send_at: '2026-06-01T12:00:00Z' });
  assert.deepStrictEqual([cancelled.statusCode, cancelled.json(), moved.statusCode, moved.json()], [404, { message: 'Not found' }, 404, { message: 'Not found' }]);
  assert.equal((await get(service, `/v1/messages/${msgid}`, account.apiKey)).json().status, 'scheduled');
});

test('moving a scheduled message answers 200 with its new time and shows it', async (t) => {
  const { service, account } = await clocked(t);
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ send_at: '2026-06-01T10:00:00Z' }));
  const msgid = res.json().messages[0].msgid as string;
  const moved = await send(service, 'PATCH', `/v1/messages/${msgid}/schedule`, account.apiKey, { send_at: '2026-06-01T12:00:00Z' });
  assert.equal(moved.statusCode, 200);
  assert.deepStrictEqual(moved.json(), { msgid, status: 'scheduled', send_at: '2026-06-01T12:00:00.000Z' });
  const view = (await get(service, `/v1/messages/${msgid}`, account.apiKey)).json();
  assert.equal(view.send_at, '2026-06-01T12:00:00.000Z');
  assert.deepStrictEqual(view.events.at(-1), { type: 'scheduled', at: iso(T0), send_at: '2026-06-01T12:00:00.000Z' });
});

test('a moved message leaves at its new time, not its old one', async (t) => {
  const { service, account, setNow } = await clocked(t);
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ send_at: '2026-06-01T10:00:00Z' }));
  const msgid = res.json().messages[0].msgid as string;
  await send(service, 'PATCH', `/v1/messages/${msgid}/schedule`, account.apiKey, { send_at: '2026-06-01T12:00:00Z' });
  setNow(T0 + HOUR);
  await service.worker.drain();
  assert.equal((await get(service, `/v1/messages/${msgid}`, account.apiKey)).json().status, 'scheduled');
  setNow(T0 + 3 * HOUR);
  await service.worker.drain();
  assert.equal((await get(service, `/v1/messages/${msgid}`, account.apiKey)).json().status, 'sent');
});

test('moving a message earlier makes it leave at the earlier time', async (t) => {
  const { service, account, setNow } = await clocked(t);
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ send_at: '2026-06-01T12:00:00Z' }));
  const msgid = res.json().messages[0].msgid as string;
  await send(service, 'PATCH', `/v1/messages/${msgid}/schedule`, account.apiKey, { send_at: '2026-06-01T09:30:00Z' });
  setNow(T0 + HOUR / 2);
  await service.worker.drain();
  assert.equal((await get(service, `/v1/messages/${msgid}`, account.apiKey)).json().status, 'sent');
});

test('moving a message more than 72 hours ahead is refused with 400', async (t) => {
  const { service, account } = await clocked(t);
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ send_at: '2026-06-01T10:00:00Z' }));
  const moved = await send(service, 'PATCH', `/v1/messages/${res.json().messages[0].msgid}/schedule`, account.apiKey, { send_at: iso(T0 + 73 * HOUR) });
  assert.equal(moved.statusCode, 400);
  assert.deepStrictEqual(moved.json(), { message: 'Invalid request, a field has the wrong type or value', detail: 'send_at must be at most 72 hours ahead' });
});

test('moving a message into the past is refused with 400', async (t) => {
  const { service, account } = await clocked(t);
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ send_at: '2026-06-01T10:00:00Z' }));
  const moved = await send(service, 'PATCH', `/v1/messages/${res.json().messages[0].msgid}/schedule`, account.apiKey, { send_at: iso(T0 - 1000) });
  assert.deepStrictEqual([moved.statusCode, moved.json()], [400, { message: 'Invalid request, a field has the wrong type or value', detail: 'send_at must be in the future' }]);
});

test('moving a message that was sent answers 409 with the status sent', async (t) => {
  const { service, account, setNow } = await clocked(t);
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ send_at: '2026-06-01T10:00:00Z' }));
  const msgid = res.json().messages[0].msgid as string;
  setNow(T0 + HOUR);
  await service.worker.drain();
  const moved = await send(service, 'PATCH', `/v1/messages/${msgid}/schedule`, account.apiKey, { send_at: '2026-06-01T12:00:00Z' });
  assert.deepStrictEqual([moved.statusCode, moved.json()], [409, { message: 'The message is not scheduled', status: 'sent' }]);
});

test('the log lists scheduled messages under status=scheduled with their time', async (t) => {
  const { service, account } = await clocked(t);
  await post(service, '/v1/sms/send', account.apiKey, smsBody({ mobile_numbers: ['+5215512345678'] }));
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ mobile_numbers: ['+34612345678'], send_at: '2026-06-01T10:00:00Z' }));
  const page = (await get(service, '/v1/messages?status=scheduled', account.apiKey)).json();
  assert.deepStrictEqual(page.data.map((m: { msgid: string; send_at: string }) => [m.msgid, m.send_at]), [[res.json().messages[0].msgid, '2026-06-01T10:00:00.000Z']]);
});

test('a key without the SMS scope cannot cancel a scheduled SMS', async (t) => {
  const { service, account } = await clocked(t);
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ send_at: '2026-06-01T10:00:00Z' }));
  const emailKey = (await post(service, '/v1/api-keys', account.apiKey, { name: 'mail only', scopes: ['email'] })).json().api_key as string;
  const cancelled = await send(service, 'DELETE', `/v1/messages/${res.json().messages[0].msgid}/schedule`, emailKey);
  assert.deepStrictEqual([cancelled.statusCode, cancelled.json()], [401, { message: 'API key not authorized.' }]);
});

test('a test key\'s scheduled send is unbilled, and cancelling it refunds nothing', async (t) => {
  const { service, account } = await clocked(t);
  const testKey = (await post(service, '/v1/api-keys', account.apiKey, { name: 'CI', scopes: ['sms'], mode: 'test' })).json().api_key as string;
  const res = await post(service, '/v1/sms/send', testKey, smsBody({ send_at: '2026-06-01T10:00:00Z' }));
  assert.equal(res.json().messages_left, 10);
  const cancelled = await send(service, 'DELETE', `/v1/messages/${res.json().messages[0].msgid}/schedule`, testKey);
  assert.deepStrictEqual(cancelled.json().refunded, { messages: 0, balance: 0 });
  assert.equal((await readAccount(service, account.id)).messagesLeft, 10);
  assert.equal((await listLedger(service.deps.db, account.id)).some((e) => e.reason === 'refund'), false);
});

test('a test key cannot cancel a live scheduled message', async (t) => {
  const { service, account } = await clocked(t);
  const testKey = (await post(service, '/v1/api-keys', account.apiKey, { name: 'CI', scopes: ['sms'], mode: 'test' })).json().api_key as string;
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ send_at: '2026-06-01T10:00:00Z' }));
  const cancelled = await send(service, 'DELETE', `/v1/messages/${res.json().messages[0].msgid}/schedule`, testKey);
  assert.deepStrictEqual([cancelled.statusCode, cancelled.json()], [403, {
    message: 'A test key cannot do this', detail: 'a test key cancels and moves only messages sent with a test key',
  }]);
});

test('a cancelled scheduled send is not counted as accepted in the usage of its day', async (t) => {
  const { service, account } = await clocked(t);
  await post(service, '/v1/sms/send', account.apiKey, smsBody({ mobile_numbers: ['+5215512345678'], send_at: '2026-06-01T10:00:00Z' }));
  const cancelled = await post(service, '/v1/sms/send', account.apiKey, smsBody({ mobile_numbers: ['+34612345678'], send_at: '2026-06-01T10:00:00Z' }));
  await send(service, 'DELETE', `/v1/messages/${cancelled.json().messages[0].msgid}/schedule`, account.apiKey);
  const usage = (await get(service, '/v1/usage?days=1', account.apiKey)).json();
  assert.deepStrictEqual(usage.days[0].sms, { accepted: 1, delivered: 0, bounced: 0, failed: 0 });
});

test('a scheduled message is not in the outbox depth before its time, and is aged from its time once due', async (t) => {
  const { service, account } = await clocked(t);
  await post(service, '/v1/sms/send', account.apiKey, smsBody({ send_at: '2026-06-01T10:00:00Z' }));
  const sms = (now: number) => readQueueDepths(service.deps.db, now).then((depths) => depths.outbox.find((q) => q.channel === 'sms'));
  assert.deepStrictEqual(await sms(T0 + HOUR - 1), { channel: 'sms', depth: 0, oldestAgeSeconds: 0 });
  assert.deepStrictEqual(await sms(T0 + HOUR + 30_000), { channel: 'sms', depth: 1, oldestAgeSeconds: 30 });
});

test('cancels racing the worker at the send time leave each message either sent or cancelled and refunded, never both', async (t) => {
  const { service, setNow } = await clocked(t);
  const account = await openAccount(service, { name: 'busy', messagesLeft: 100 });
  const numbers = Array.from({ length: 40 }, (_, i) => `+3461234${String(i).padStart(4, '0')}`);
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ mobile_numbers: numbers, send_at: '2026-06-01T10:00:00Z' }));
  const msgids = (res.json().messages as { msgid: string }[]).map((m) => m.msgid);
  setNow(T0 + HOUR);
  const [answers] = await Promise.all([
    Promise.all(msgids.map((msgid) => send(service, 'DELETE', `/v1/messages/${msgid}/schedule`, account.apiKey))),
    service.worker.drain(),
  ]);
  await service.worker.drain();
  const cancelled = answers.filter((a) => a.statusCode === 200).length;
  assert.deepStrictEqual(answers.filter((a) => a.statusCode !== 200).map((a) => a.json().message), Array(40 - cancelled).fill('The message is not scheduled'));
  const statuses = [];
  for (const msgid of msgids) statuses.push((await get(service, `/v1/messages/${msgid}`, account.apiKey)).json().status as string);
  assert.deepStrictEqual([statuses.filter((s) => s === 'cancelled').length, statuses.filter((s) => s === 'sent').length], [cancelled, 40 - cancelled]);
  const refunds = (await listLedger(service.deps.db, account.id)).filter((e) => e.reason === 'refund');
  assert.equal(refunds.length, cancelled);
  assert.equal((await readAccount(service, account.id)).messagesLeft, 100 - 40 + cancelled);
  t.diagnostic(`${cancelled} of 40 cancelled before the worker took them`);
});

test('an item of an SMS batch with send_at is scheduled like a single send', async (t) => {
  const { service, account } = await clocked(t);
  const res = await post(service, '/v1/sms/batch', account.apiKey, [smsBody({ send_at: '2026-06-01T10:00:00Z' }), smsBody({ mobile_numbers: ['+34612345678'] })]);
  assert.equal(res.statusCode, 200);
  const [later, now] = (res.json().data as { messages: { msgid: string }[] }[]).map((item) => item.messages[0]!.msgid);
  const statuses = [(await get(service, `/v1/messages/${later}`, account.apiKey)).json(), (await get(service, `/v1/messages/${now}`, account.apiKey)).json()];
  assert.deepStrictEqual(statuses.map((m) => [m.status, m.send_at]), [['scheduled', '2026-06-01T10:00:00.000Z'], ['queued', undefined]]);
});
