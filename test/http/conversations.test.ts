// GET /v1/conversations and /v1/conversations/:person: one thread per person across
// channels, what herald sent and what came back, merged in time order. What people send
// arrives through receiveInbound, the door every channel hands its messages to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from '../../src/service.ts';
import type { Channel } from '../../src/domain/account.ts';
import { receiveInbound } from '../../src/app/receive-inbound.ts';
import { touchWhatsappSession } from '../../src/store/whatsapp-sessions.ts';
import { emailBody, get, keyWithScopes, openAccount, post, startService, type TestAccount } from '../support/service.ts';

const T0 = Date.parse('2026-05-01T08:00:00.000Z');
const MINUTE = 60_000;
const ANA = '+5215512345678';

type Arriving = { channel: Channel; from: string; to: string; text: string | null; at: number; content?: Record<string, string> };

/** The person's message, received at `at` (herald's clock moved there: a message is never later than its clock). */
async function receiveAt(service: Service, account: TestAccount, now: { value: number }, message: Arriving): Promise<string> {
  now.value = Math.max(now.value, message.at);
  const { channel, from, to, text, at, content } = message;
  const recorded = await receiveInbound(service.deps, { channel, from, to, text, receivedAt: at, accountId: account.id, ...(content === undefined ? {} : { content }) });
  assert.equal(recorded.stored, true);
  return recorded.id;
}

/** A clock the test moves, an account, and its key. */
async function conversationService(t: Parameters<typeof startService>[0]) {
  const now = { value: T0 };
  const service = await startService(t, { clock: () => now.value });
  const account = await openAccount(service, { balance: 10_000, whatsappPrice: 500, whatsappPhoneNumberId: '106540352242922', whatsappAccessToken: 'EAAG-token' });
  const receive = (to: TestAccount, message: Arriving): Promise<string> => receiveAt(service, to, now, message);
  return { service, account, now, receive };
}

async function sendSms(service: Service, account: TestAccount, to: string, message: string): Promise<string> {
  const res = await post(service, '/v1/sms/send', account.apiKey, { mobile_numbers: [to], message });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().messages[0].msgid;
}

test('the thread holds what herald sent and what came back on every channel, oldest first, and offers WhatsApp while its window is open', async (t) => {
  const { service, account, now, receive } = await conversationService(t);
  const sms = await sendSms(service, account, ANA, 'Your table is booked for 8 pm');
  const smsReply = await receive(account, { channel: 'sms', from: ANA, to: '+15550001111', text: 'Can we make it 9?', at: T0 + MINUTE });
  const waReply = await receive(account, { channel: 'whatsapp', from: ANA, to: '106540352242922', text: null, at: T0 + 2 * MINUTE, content: { type: 'image' } });
  await touchWhatsappSession(service.deps.db, { accountId: account.id, destination: ANA.slice(1), at: T0 + 2 * MINUTE });
  now.value = T0 + 3 * MINUTE;
  const session = await post(service, '/v1/whatsapp/sendMessage', account.apiKey, { destination: ANA, message: '9 pm it is' });
  assert.equal(session.statusCode, 200, session.body);
  const wa: string = session.json().msgid;

  const res = await get(service, `/v1/conversations/${encodeURIComponent(ANA)}`, account.apiKey);

  assert.equal(res.statusCode, 200, res.body);
  assert.deepStrictEqual(res.json(), {
    person: ANA,
    reply_channel: 'whatsapp',
    whatsapp_window_open_until: '2026-05-02T08:02:00.000Z',
    data: [
      { direction: 'out', at: '2026-05-01T08:00:00.000Z', msgid: sms, channel: 'sms', status: 'queued', text: 'Your table is booked for 8 pm' },
      {
        direction: 'in', at: '2026-05-01T08:01:00.000Z', id: smsReply, channel: 'sms', from: ANA, to: '+15550001111', text: 'Can we make it 9?',
        received_at: '2026-05-01T08:01:00.000Z', account: account.id,
      },
      {
        direction: 'in', at: '2026-05-01T08:02:00.000Z', id: waReply, channel: 'whatsapp', from: ANA, to: '106540352242922', text: null, type: 'image',
        received_at: '2026-05-01T08:02:00.000Z', account: account.id,
      },
      { direction: 'out', at: '2026-05-01T08:03:00.000Z', msgid: wa, channel: 'whatsapp', status: 'queued', text: '9 pm it is' },
    ],
    next_cursor: null,
  });
});

test('after the window closes the reply channel is SMS for a number and email for an address', async (t) => {
  const { service, account, now, receive } = await conversationService(t);
  await receive(account, { channel: 'whatsapp', from: ANA, to: '106540352242922', text: 'hola', at: T0 });
  await touchWhatsappSession(service.deps.db, { accountId: account.id, destination: ANA.slice(1), at: T0 });
  await receive(account, { channel: 'email', from: 'bo@example.org', to: 'help@example.com', text: 'Hello', at: T0, content: { subject: 'Order 12' } });
  now.value = T0 + 24 * 60 * MINUTE;

  const phone = (await get(service, `/v1/conversations/${encodeURIComponent(ANA)}`, account.apiKey)).json();
  const email = (await get(service, `/v1/conversations/${encodeURIComponent('Bo@Example.org')}`, account.apiKey)).json();

  assert.deepStrictEqual([phone.reply_channel, phone.whatsapp_window_open_until], ['sms', null]);
  assert.deepStrictEqual([email.person, email.reply_channel, email.whatsapp_window_open_until], ['bo@example.org', 'email', null]);
});

test('the list has one row per person who wrote, newest activity first, with the channels, last words and their direction', async (t) => {
  const { service, account, now, receive } = await conversationService(t);
  await receive(account, { channel: 'sms', from: ANA, to: '+15550001111', text: 'Can we make it 9?', at: T0 });
  await receive(account, { channel: 'email', from: 'bo@example.org', to: 'help@example.com', text: 'Where is\n my order?', at: T0 + MINUTE, content: { subject: 'Order 12' } });
  now.value = T0 + 2 * MINUTE;
  await sendSms(service, account, ANA, 'Yes, 9 pm');
  now.value = T0 + 3 * MINUTE;
  // Sent to, never heard from: not a conversation.
  await sendSms(service, account, '+5215500000000', 'Hello');
  const email = await post(service, '/v1/email', account.apiKey, emailBody({ to: [{ email: 'bo@example.org' }], subject: 'Re: Order 12', body: '<p>It ships today.</p>' }));
  assert.equal(email.statusCode, 200, email.body);

  const res = await get(service, '/v1/conversations', account.apiKey);

  assert.equal(res.statusCode, 200, res.body);
  assert.deepStrictEqual(res.json(), {
    data: [
      { person: 'bo@example.org', channels: ['email'], last_at: '2026-05-01T08:03:00.000Z', last_text: 'It ships today.', last_direction: 'out' },
      { person: ANA, channels: ['sms'], last_at: '2026-05-01T08:02:00.000Z', last_text: 'Yes, 9 pm', last_direction: 'out' },
    ],
    next_cursor: null,
  });
});

test('the list and a thread page with next_cursor, without repeating or skipping', async (t) => {
  const { service, account, receive } = await conversationService(t);
  for (let i = 0; i < 3; i++) await receive(account, { channel: 'sms', from: `+521551234567${i}`, to: '+15550001111', text: `m${i}`, at: T0 + i * MINUTE });
  for (let i = 3; i < 6; i++) await receive(account, { channel: 'sms', from: ANA, to: '+15550001111', text: `m${i}`, at: T0 + i * MINUTE });

  const first = (await get(service, '/v1/conversations?limit=2', account.apiKey)).json();
  const second = (await get(service, `/v1/conversations?limit=2&cursor=${first.next_cursor}`, account.apiKey)).json();
  assert.deepStrictEqual([...first.data, ...second.data].map((c: { person: string }) => c.person), [ANA, '+5215512345672', '+5215512345671', '+5215512345670']);
  assert.equal(second.next_cursor, null);

  const path = `/v1/conversations/${encodeURIComponent(ANA)}`;
  const latest = (await get(service, `${path}?limit=2`, account.apiKey)).json();
  const older = (await get(service, `${path}?limit=2&cursor=${latest.next_cursor}`, account.apiKey)).json();
  assert.deepStrictEqual([latest.data.map((m: { text: string }) => m.text), older.data.map((m: { text: string }) => m.text), older.next_cursor], [['m4', 'm5'], ['m3'], null]);
});

test('one account never sees another account\'s conversations nor a thread', async (t) => {
  const { service, account, receive } = await conversationService(t);
  const other = await openAccount(service, { name: 'other' });
  await receive(account, { channel: 'sms', from: ANA, to: '+15550001111', text: 'mine', at: T0 });

  const list = await get(service, '/v1/conversations', other.apiKey);
  const thread = await get(service, `/v1/conversations/${encodeURIComponent(ANA)}`, other.apiKey);

  assert.deepStrictEqual([list.statusCode, list.json()], [200, { data: [], next_cursor: null }]);
  assert.deepStrictEqual([thread.statusCode, thread.json()], [404, { message: 'Not found' }]);
});

test('a key sees only the channels it holds a scope of', async (t) => {
  const { service, account, receive } = await conversationService(t);
  await receive(account, { channel: 'sms', from: ANA, to: '+15550001111', text: 'by sms', at: T0 });
  await receive(account, { channel: 'whatsapp', from: ANA, to: '106540352242922', text: 'by whatsapp', at: T0 + MINUTE });
  const smsKey = await keyWithScopes(service, account.id, ['sms']);

  const thread = (await get(service, `/v1/conversations/${encodeURIComponent(ANA)}`, smsKey)).json();

  assert.deepStrictEqual(thread.data.map((m: { text: string }) => m.text), ['by sms']);
});

test('a person that is neither a number nor an address, and a cursor herald did not give, are answered 400', async (t) => {
  const { service, account } = await conversationService(t);

  const person = await get(service, '/v1/conversations/not-a-person', account.apiKey);
  const control = await get(service, '/v1/conversations/bo%00@example.org', account.apiKey);
  const cursor = await get(service, '/v1/conversations?cursor=nope', account.apiKey);
  // `AA` is a NUL once decoded: PostgreSQL would refuse it as a parameter.
  const nul = await get(service, '/v1/conversations?cursor=1_AA', account.apiKey);

  assert.deepStrictEqual([person.statusCode, person.json()], [400, {
    message: 'Invalid request, a field has the wrong type or value', detail: 'person must be a phone number (+ and digits) or an email address',
  }]);
  assert.deepStrictEqual(control.json(), person.json());
  assert.deepStrictEqual([cursor.statusCode, cursor.json()], [400, {
    message: 'Invalid request, a field has the wrong type or value', detail: 'cursor must be the next_cursor of a previous page',
  }]);
  assert.deepStrictEqual(nul.json(), cursor.json());
});
