// POST /v1/email/batch and /v1/sms/batch (README "Batch sends"): each item answered as its
// single send would be, in order; billed per accepted item in one unit of work; one
// Idempotency-Key for the batch; `?atomic=true` refuses all for one item; 500 items at most.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { listLedger } from '../../src/store/ledger.ts';
import type { Service } from '../../src/service.ts';
import { issueApiKey } from '../../src/app/api-keys.ts';
import { emailBody, openAccount, readAccount, smsBody, startService } from '../support/service.ts';

const EMAIL_BATCH = '/v1/email/batch';
const SMS_BATCH = '/v1/sms/batch';
const NO_MESSAGES = { status: 401, message: 'No messages left, please buy more messages' };
const KEY = 'batch-2026-11-28';
/** A batch refused whole: 400 with herald's `invalidField` text and what was wrong. */
const refusedWhole = (detail: string) => ({ status: 400, body: { message: 'Invalid request, a field has the wrong type or value', detail } });

function batch(service: Service, url: string, apiKey: string, body: unknown, key?: string): Promise<LightMyRequestResponse> {
  return service.http.inject({
    method: 'POST', url,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}`, ...(key === undefined ? {} : { 'idempotency-key': key }) },
    payload: JSON.stringify(body),
  });
}

/** The account's ledger without its opening line, oldest first: [reason, messages]. */
async function sendLedger(service: Service, accountId: string): Promise<[string, number][]> {
  const entries = await listLedger(service.deps.db, accountId);
  return entries.filter((e) => e.reason !== 'account.open').map((e) => [e.reason, e.messagesDelta]);
}

async function storedMessages(service: Service, accountId: string): Promise<{ id: string; recipient: string }[]> {
  return service.deps.db.selectFrom('messages').select(['id', 'recipient']).where('account_id', '=', accountId).orderBy('id').execute();
}

/** No message stored, no ledger entry, the account's messages as they were. */
async function assertNothingSentOrBilled(service: Service, accountId: string, messagesLeft: number): Promise<void> {
  assert.deepStrictEqual(await storedMessages(service, accountId), []);
  assert.deepStrictEqual(await sendLedger(service, accountId), []);
  assert.equal((await readAccount(service, accountId)).messagesLeft, messagesLeft);
}

/** 500 emails, one recipient each (`n@example.org`); three of them invalid, at 3, 10 and 250. */
function emailsWithThreeInvalid(): Record<string, unknown>[] {
  return Array.from({ length: 500 }, (_, n) => {
    if (n === 3) return emailBody({ to: [{ email: `${n}@example.org` }], subject: '' });
    if (n === 10) return emailBody({ to: [{ email: 'not-an-address' }] });
    if (n === 250) return emailBody({ to: [{ email: `${n}@example.org` }], from: { email: 'news@unverified.example', name: 'N' } });
    return emailBody({ to: [{ email: `${n}@example.org` }] });
  });
}

test('a batch of 500 emails answers each item in order and bills exactly the accepted ones, those past the balance refused alone', async (t) => {
  const service = await startService(t);
  // 497 valid items, 495 messages: the last two valid items (498, 499) would overdraw.
  const account = await openAccount(service, { messagesLeft: 495 });

  const res = await batch(service, EMAIL_BATCH, account.apiKey, emailsWithThreeInvalid());

  assert.equal(res.statusCode, 200, res.body);
  const data = res.json().data as Record<string, unknown>[];
  assert.equal(data.length, 500);
  assert.deepStrictEqual(data[3], { status: 400, message: 'Subject missing or empty!' });
  assert.deepStrictEqual(data[10], { status: 400, message: 'The recipient address has the wrong structure!', error: [{ email: 'not-an-address' }] });
  assert.deepStrictEqual(data[250], { status: 401, message: 'Domain not permitted. err 2' });
  assert.deepStrictEqual(data[498], NO_MESSAGES);
  assert.deepStrictEqual(data[499], NO_MESSAGES);
  const stored = await storedMessages(service, account.id);
  const accepted = data.flatMap((item, n) => ([3, 10, 250, 498, 499].includes(n) ? [] : [[n, item] as const]));
  assert.equal(accepted.length, 495);
  for (const [n, item] of accepted) {
    const msgid = stored.find((m) => m.recipient === `${n}@example.org`)?.id;
    assert.deepStrictEqual(item, { message: 'Email queued for delivery', to: [{ email: `${n}@example.org`, msgid }] });
  }
  assert.equal(stored.length, 495);
  assert.deepStrictEqual(await sendLedger(service, account.id), Array.from({ length: 495 }, () => ['email.send', -1]));
  assert.equal((await readAccount(service, account.id)).messagesLeft, 0);
});

test('an email batch sent again with the same Idempotency-Key answers the same body and bills nothing more', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 600 });
  const body = emailsWithThreeInvalid();

  const first = await batch(service, EMAIL_BATCH, account.apiKey, body, KEY);
  const again = await batch(service, EMAIL_BATCH, account.apiKey, body, KEY);

  assert.equal(first.statusCode, 200);
  assert.equal(again.statusCode, 200);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal(again.body, first.body);
  assert.equal((await storedMessages(service, account.id)).length, 497);
  assert.equal((await sendLedger(service, account.id)).length, 497);
  assert.equal((await readAccount(service, account.id)).messagesLeft, 103);
});

test('the same batch under the same key but with ?atomic=true is another request: 422', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 10 });
  const body = [emailBody()];

  await batch(service, EMAIL_BATCH, account.apiKey, body, KEY);
  const atomic = await batch(service, `${EMAIL_BATCH}?atomic=true`, account.apiKey, body, KEY);

  assert.deepStrictEqual({ status: atomic.statusCode, body: atomic.json() }, { status: 422, body: { message: 'Idempotency key already used with a different request' } });
});

test('with ?atomic=true an invalid item refuses the whole batch with its error and index, nothing stored or billed', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 10 });
  const body = [emailBody(), emailBody(), emailBody({ subject: '' }), emailBody()];

  const res = await batch(service, `${EMAIL_BATCH}?atomic=true`, account.apiKey, body);

  assert.deepStrictEqual({ status: res.statusCode, body: res.json() }, { status: 400, body: { message: 'Subject missing or empty!', index: 2 } });
  await assertNothingSentOrBilled(service, account.id, 10);
});

test('with ?atomic=true an item past the balance refuses the whole batch with 401 and its index, nothing billed', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 2 });

  const res = await batch(service, `${EMAIL_BATCH}?atomic=true`, account.apiKey, [emailBody(), emailBody(), emailBody()]);

  assert.deepStrictEqual({ status: res.statusCode, body: res.json() }, { status: 401, body: { message: 'No messages left, please buy more messages', index: 2 } });
  await assertNothingSentOrBilled(service, account.id, 2);
});

test('a batch of 501 items is refused whole, as is a body that is not an array or an empty one', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 1000 });
  const refusal = (items: string) => refusedWhole(`the body must be an array of 1 to 500 ${items}`);

  const answers = [
    await batch(service, EMAIL_BATCH, account.apiKey, Array.from({ length: 501 }, () => emailBody())),
    await batch(service, EMAIL_BATCH, account.apiKey, emailBody()),
    await batch(service, EMAIL_BATCH, account.apiKey, []),
    await batch(service, SMS_BATCH, account.apiKey, Array.from({ length: 501 }, () => smsBody())),
  ];

  assert.deepStrictEqual(answers.map((res) => ({ status: res.statusCode, body: res.json() })), [refusal('emails'), refusal('emails'), refusal('emails'), refusal('SMS sends')]);
  assert.deepStrictEqual(await storedMessages(service, account.id), []);
});

test('an SMS batch with different texts answers each item as /v1/sms/send would, billing segments of the accepted ones only', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 5 });
  const body = [
    { message: 'First text', mobile_numbers: ['+5215512345671', '+5215512345672'] },
    { message: 'x', mobile_numbers: ['12'] },
    { message: 'b'.repeat(161), mobile_numbers: ['+5215512345673'] },
    { message: 'Too much now', mobile_numbers: ['+5215512345674', '+5215512345675'] },
    { message: 'Last one fits', mobile_numbers: ['+5215512345676'] },
  ];

  const res = await batch(service, SMS_BATCH, account.apiKey, body);

  assert.equal(res.statusCode, 200, res.body);
  const data = res.json().data as { messages?: { msgid: string }[] }[];
  const msgid = (item: number, n: number) => data[item]?.messages?.[n]?.msgid;
  assert.deepStrictEqual(data, [
    {
      result: 'SMS queued for delivery', total_contacts: 2, total_messages_sent: 2, messages_left: 3,
      messages: [{ mobile_number: '+5215512345671', msgid: msgid(0, 0) }, { mobile_number: '+5215512345672', msgid: msgid(0, 1) }],
    },
    { status: 400, message: 'The mobile number has the wrong structure!', error: [{ mobile_number: '12' }] },
    { result: 'SMS queued for delivery', total_contacts: 1, total_messages_sent: 2, messages_left: 1, messages: [{ mobile_number: '+5215512345673', msgid: msgid(2, 0) }] },
    NO_MESSAGES,
    { result: 'SMS queued for delivery', total_contacts: 1, total_messages_sent: 1, messages_left: 0, messages: [{ mobile_number: '+5215512345676', msgid: msgid(4, 0) }] },
  ]);
  const stored = await storedMessages(service, account.id);
  assert.deepStrictEqual(stored.map((m) => m.id).sort(), [msgid(0, 0), msgid(0, 1), msgid(2, 0), msgid(4, 0)].sort());
  assert.deepStrictEqual(await sendLedger(service, account.id), [['sms.send', -2], ['sms.send', -2], ['sms.send', -1]]);
  assert.equal((await readAccount(service, account.id)).messagesLeft, 0);
});

test('an SMS batch sent again with the same Idempotency-Key answers the same body and bills nothing more', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 10 });
  const body = [smsBody({ message: 'One' }), smsBody({ message: 'Two' }), smsBody({ mobile_numbers: [] })];

  const first = await batch(service, SMS_BATCH, account.apiKey, body, KEY);
  const again = await batch(service, SMS_BATCH, account.apiKey, body, KEY);

  assert.equal(first.statusCode, 200);
  assert.deepStrictEqual(first.json().data[2], { status: 400, message: 'Mobile numbers missing or empty!' });
  // Debited together, each item is answered what was left after it, as if sent one after the other.
  assert.deepStrictEqual(first.json().data.slice(0, 2).map((item: { messages_left: number }) => item.messages_left), [9, 8]);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal(again.body, first.body);
  assert.deepStrictEqual(await sendLedger(service, account.id), [['sms.send', -1], ['sms.send', -1]]);
  assert.equal((await readAccount(service, account.id)).messagesLeft, 8);
});

test('with ?atomic=true an invalid SMS item refuses the whole batch with its error and index', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 10 });

  const res = await batch(service, `${SMS_BATCH}?atomic=true`, account.apiKey, [smsBody(), smsBody({ message: '' })]);

  assert.deepStrictEqual({ status: res.statusCode, body: res.json() }, { status: 400, body: { message: 'Message missing or empty!', index: 1 } });
  await assertNothingSentOrBilled(service, account.id, 10);
});

test('a batch is one request for the rate limit, whatever its items', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 100, rateLimitPerSecond: 1 });

  const first = await batch(service, EMAIL_BATCH, account.apiKey, Array.from({ length: 20 }, () => emailBody()));
  const second = await batch(service, EMAIL_BATCH, account.apiKey, [emailBody()]);

  assert.equal(first.statusCode, 200);
  assert.equal((first.json().data as unknown[]).length, 20);
  assert.deepStrictEqual({ status: second.statusCode, body: second.json() }, {
    status: 429, body: { success: false, message: 'Ha excedido el límite de peticiones permitidas por segundo.', error: 'RATE_LIMIT_EXCEEDED' },
  });
});

test('a test key\'s batch is accepted and billed nothing (the sandbox)', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 1 });
  const { apiKey } = await issueApiKey(service.deps, service.deps.db, account.id, { mode: 'test' });

  const res = await batch(service, SMS_BATCH, apiKey, [smsBody(), smsBody(), smsBody()]);

  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual((res.json().data as { messages_left: number }[]).map((item) => item.messages_left), [1, 1, 1]);
  assert.deepStrictEqual(await sendLedger(service, account.id), []);
  assert.equal((await readAccount(service, account.id)).messagesLeft, 1);
});

test('items that are not send bodies are each answered with the single send\'s error, the others still go', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 10 });

  const res = await batch(service, SMS_BATCH, account.apiKey, [null, 5, 'x', [], {}, smsBody()]);

  assert.equal(res.statusCode, 200, res.body);
  const data = res.json().data as Record<string, unknown>[];
  assert.deepStrictEqual(data.slice(0, 5), [
    { status: 400, message: 'Invalid request, missing parameters. err 1' },
    { status: 400, message: 'Invalid request, missing parameters. err 1' },
    { status: 400, message: 'Invalid request, missing parameters. err 1' },
    { status: 400, message: 'Invalid request, missing parameters. err 1' },
    { status: 400, message: 'Mobile numbers missing or empty!' },
  ]);
  assert.equal(data[5]?.result, 'SMS queued for delivery');
  assert.deepStrictEqual(await sendLedger(service, account.id), [['sms.send', -1]]);
});

test('a batch whose items have more than 10,000 recipients in all is refused whole', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 20_000 });
  const item = (n: number) => emailBody({ to: Array.from({ length: 2000 }, (_, k) => ({ email: `r${n}-${k}@example.org` })) });

  const res = await batch(service, EMAIL_BATCH, account.apiKey, Array.from({ length: 6 }, (_, n) => item(n)));

  assert.deepStrictEqual({ status: res.statusCode, body: res.json() }, refusedWhole('a batch\'s items have at most 10000 recipients in all'));
  await assertNothingSentOrBilled(service, account.id, 20_000);
});

test('a batch whose templates render more than 20 Mi characters in all is refused whole', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 10 });
  const made = await batch(service, '/v1/email/templates', account.apiKey, { name: 'Wide', html: '{{v}}'.repeat(2000) });
  assert.equal(made.statusCode, 201, made.body);
  // Each item renders 2,000 × 5,000 = 10,000,000 characters, under the single send's limit; three are over the batch's.
  const item = emailBody({ body: undefined, template_id: made.json().template_id, variables: { v: 'x'.repeat(5000) } });

  const res = await batch(service, EMAIL_BATCH, account.apiKey, [item, item, item]);

  assert.deepStrictEqual({ status: res.statusCode, body: res.json() }, refusedWhole('a batch\'s items have at most 20971520 characters of content in all'));
  await assertNothingSentOrBilled(service, account.id, 10);
});

test('single sends and a batch at the same time never overdraw the account and bill exactly the messages stored', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 30 });
  const single = (n: number) => batch(service, '/v1/sms/send', account.apiKey, smsBody({ message: `Single ${n}` }));

  const answers = await Promise.all([
    ...Array.from({ length: 10 }, (_, n) => single(n)),
    batch(service, SMS_BATCH, account.apiKey, Array.from({ length: 20 }, (_, n) => smsBody({ message: `Item ${n}` }))),
    ...Array.from({ length: 10 }, (_, n) => single(10 + n)),
  ]);

  const singlesAccepted = answers.filter((res) => res.json().result !== undefined).length;
  const batchData = answers[10]?.json().data as { result?: string }[];
  const itemsAccepted = batchData.filter((item) => item.result !== undefined).length;
  assert.equal(singlesAccepted + itemsAccepted, 30);
  assert.equal((await storedMessages(service, account.id)).length, 30);
  assert.equal((await sendLedger(service, account.id)).length, 30);
  assert.equal((await readAccount(service, account.id)).messagesLeft, 0);
});

test('a suppressed address and an opted-out number in a batch get their msgids, are stored as dropped and are not billed', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 10 });
  assert.equal((await batch(service, '/v1/consent', account.apiKey, { channel: 'email', address: 'ana@example.org', change: 'opted_out' })).statusCode, 201);
  assert.equal((await batch(service, '/v1/consent', account.apiKey, { channel: 'sms', address: '+5215512345671', change: 'opted_out' })).statusCode, 201);

  const emails = await batch(service, EMAIL_BATCH, account.apiKey, [emailBody({ to: [{ email: 'Ana@Example.org' }] }), emailBody({ to: [{ email: 'bo@example.org' }] })]);
  const sms = await batch(service, SMS_BATCH, account.apiKey, [smsBody({ mobile_numbers: ['+5215512345671', '+5215512345672'] })]);

  assert.equal(emails.statusCode, 200, emails.body);
  assert.equal(sms.statusCode, 200, sms.body);
  const statuses = await service.deps.db.selectFrom('messages').select(['recipient', 'status']).where('account_id', '=', account.id).execute();
  assert.deepStrictEqual(statuses.map((m) => [m.recipient, m.status]).sort(), [
    ['+5215512345671', 'dropped'], ['+5215512345672', 'queued'], ['Ana@Example.org', 'dropped'], ['bo@example.org', 'queued'],
  ]);
  const smsItem = sms.json().data[0] as { total_contacts: number; total_messages_sent: number; messages_left: number };
  assert.deepStrictEqual([smsItem.total_contacts, smsItem.total_messages_sent, smsItem.messages_left], [2, 1, 8]);
  assert.deepStrictEqual(await sendLedger(service, account.id), [['email.send', -1], ['sms.send', -1]]);
});

test('an atomic flag that is not true or false is refused before any item is looked at', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 10 });

  const res = await batch(service, `${EMAIL_BATCH}?atomic=maybe`, account.apiKey, [emailBody()]);

  assert.deepStrictEqual({ status: res.statusCode, body: res.json() }, refusedWhole('atomic must be true or false'));
  await assertNothingSentOrBilled(service, account.id, 10);
});

test('an item that names a fallback chain is refused alone with a detail that says so, the others still go', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 10 });
  const chained = smsBody({ mobile_numbers: ['+15551234567'], fallback: [{ channel: 'email', after: '10m', message: emailBody() }] });

  const res = await batch(service, SMS_BATCH, account.apiKey, [chained, smsBody()]);

  assert.equal(res.statusCode, 200, res.body);
  const data = res.json().data as Record<string, unknown>[];
  assert.deepStrictEqual(data[0], {
    status: 400, message: 'Invalid request, a field has the wrong type or value', detail: 'a batch item takes no fallback: send a chain on its own',
  });
  assert.equal(data[1]?.result, 'SMS queued for delivery');
  assert.deepStrictEqual(await sendLedger(service, account.id), [['sms.send', -1]]);
});
