// POST /v1/sms/send over HTTP: the success body, segment billing, and each error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { get, keyWithScopes, openAccount, post, readAccount, smsBody, startService, UUID } from '../support/service.ts';

const URL = '/v1/sms/send';

test('an SMS of 161 characters to 2 numbers gets 200 with 4 messages sent and the exact body', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 10 });
  const res = await post(service, URL, account.apiKey, { message: 'a'.repeat(161), mobile_numbers: ['+5215512345678', '+34612345678'] });
  assert.equal(res.statusCode, 200);
  const body = res.json();
  assert.match(body.messages[0].msgid, UUID);
  assert.match(body.messages[1].msgid, UUID);
  assert.notEqual(body.messages[0].msgid, body.messages[1].msgid);
  assert.deepStrictEqual(body, {
    result: 'SMS queued for delivery',
    total_contacts: 2,
    total_messages_sent: 4,
    messages_left: 6,
    messages: [
      { mobile_number: '+5215512345678', msgid: body.messages[0].msgid },
      { mobile_number: '+34612345678', msgid: body.messages[1].msgid },
    ],
  });
});

test('an SMS of exactly 160 characters counts as one message', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 10 });
  const res = await post(service, URL, account.apiKey, smsBody({ message: 'b'.repeat(160) }));
  assert.equal(res.statusCode, 200);
  assert.equal(res.json().total_messages_sent, 1);
  assert.equal(res.json().messages_left, 9);
});

test('the SMS send takes its messages from the account', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 10 });
  await post(service, URL, account.apiKey, { message: 'a'.repeat(161), mobile_numbers: ['+5215512345678', '+34612345678'] });
  assert.equal((await readAccount(service, account.id)).messagesLeft, 6);
});

test('a delivered SMS of 161 characters is captured as two segments', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, URL, account.apiKey, smsBody({ message: 'a'.repeat(161) }));
  await service.worker.drain();
  const raw = await get(service, `/v1/messages/${res.json().messages[0].msgid}/raw`, account.apiKey);
  assert.equal(raw.statusCode, 200);
  assert.deepStrictEqual(raw.json().segments, ['a'.repeat(160), 'a']);
});

const ERRORS: readonly { name: string; body: unknown; expected: Record<string, unknown> }[] = [
  { name: 'an SMS without mobile_numbers gets 400 Mobile numbers missing or empty!', body: { message: 'hi' }, expected: { message: 'Mobile numbers missing or empty!' } },
  { name: 'an SMS with an empty mobile_numbers list gets 400 Mobile numbers missing or empty!', body: smsBody({ mobile_numbers: [] }), expected: { message: 'Mobile numbers missing or empty!' } },
  {
    name: 'an SMS whose mobile_numbers is a string gets 400 Mobile numbers missing or empty!',
    body: smsBody({ mobile_numbers: '+5215512345678' }), expected: { message: 'Mobile numbers missing or empty!' },
  },
  { name: 'an SMS without a message gets 400 Message missing or empty!', body: { mobile_numbers: ['+5215512345678'] }, expected: { message: 'Message missing or empty!' } },
  { name: 'an SMS with an empty message gets 400 Message missing or empty!', body: smsBody({ message: '' }), expected: { message: 'Message missing or empty!' } },
  { name: 'an SMS with a blank message gets 400 Message missing or empty!', body: smsBody({ message: '   ' }), expected: { message: 'Message missing or empty!' } },
  { name: 'an SMS whose message is a number gets 400 Message missing or empty!', body: smsBody({ message: 1234 }), expected: { message: 'Message missing or empty!' } },
  {
    name: 'badly formed numbers get 400 The mobile number has the wrong structure! listing every one',
    body: smsBody({ mobile_numbers: ['5215512345678', '+5215512345678', '+123', '+12345678901234567', '+52 155 1234 5678', 5215512345678] }),
    expected: {
      message: 'The mobile number has the wrong structure!',
      error: [
        { mobile_number: '5215512345678' },
        { mobile_number: '+123' },
        { mobile_number: '+12345678901234567' },
        { mobile_number: '+52 155 1234 5678' },
        { mobile_number: '5215512345678' },
      ],
    },
  },
  { name: 'an SMS body that is a JSON array gets 400 err 1', body: [smsBody()], expected: { message: 'Invalid request, missing parameters. err 1' } },
  { name: 'an SMS body that is malformed JSON gets 400 err 1', body: '{"message":', expected: { message: 'Invalid request, missing parameters. err 1' } },
];

for (const row of ERRORS) {
  test(row.name, async (t) => {
    const service = await startService(t);
    const account = await openAccount(service);
    const res = await post(service, URL, account.apiKey, row.body);
    assert.equal(res.statusCode, 400);
    assert.deepStrictEqual(res.json(), row.expected);
  });
}

test('an SMS needing more messages than are left gets 401 No messages left, please buy more messages', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 3 });
  const res = await post(service, URL, account.apiKey, { message: 'a'.repeat(161), mobile_numbers: ['+5215512345678', '+34612345678'] });
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'No messages left, please buy more messages' });
  assert.equal((await readAccount(service, account.id)).messagesLeft, 3);
});

test('an SMS from an account with no messages left gets 401 No messages left, please buy more messages', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 0 });
  const res = await post(service, URL, account.apiKey, smsBody());
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'No messages left, please buy more messages' });
});

test('an SMS from an account with the SMS service off gets 401 current service is not active', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { services: { sms: false } });
  const res = await post(service, URL, account.apiKey, smsBody());
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'current service is not active' });
});

test('an SMS from an inactive account gets 401 current service is not active', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { active: false });
  const res = await post(service, URL, account.apiKey, smsBody());
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'current service is not active' });
});

test('an SMS with a key without the sms scope gets 401 API key not authorized.', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const emailOnly = await keyWithScopes(service, account.id, ['email']);
  const res = await post(service, URL, emailOnly, smsBody());
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'API key not authorized.' });
});

test('an SMS whose send fails inside the service gets 400 Could not send message, an error has ocurred', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 5 });
  // Renamed rather than dropped: PostgreSQL refuses to drop a table that messages reference.
  await service.store.db.schema.alterTable('sends').renameTo('sends_gone').execute();
  const res = await post(service, URL, account.apiKey, smsBody());
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Could not send message, an error has ocurred' });
  assert.equal((await readAccount(service, account.id)).messagesLeft, 5);
});

test('an SMS whose message is only unsupported characters gets 400 Message missing or empty!', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, URL, account.apiKey, smsBody({ message: '💥🎉' }));
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Message missing or empty!' });
});

test('unsupported characters are removed before counting: 160 letters and an emoji are one message', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 10 });
  const res = await post(service, URL, account.apiKey, smsBody({ message: `${'c'.repeat(80)}💥${'c'.repeat(80)}` }));
  assert.equal(res.statusCode, 200);
  assert.equal(res.json().total_messages_sent, 1);
  await service.worker.drain();
  const raw = await get(service, `/v1/messages/${res.json().messages[0].msgid}/raw`, account.apiKey);
  assert.deepStrictEqual(raw.json().segments, ['c'.repeat(160)]);
});

test('a number listed twice is two contacts and is billed twice', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 10 });
  const res = await post(service, URL, account.apiKey, smsBody({ mobile_numbers: ['+5215512345678', '+5215512345678'] }));
  assert.equal(res.statusCode, 200);
  assert.equal(res.json().total_contacts, 2);
  assert.equal(res.json().total_messages_sent, 2);
  assert.equal(res.json().messages_left, 8);
});
