// Hostile and malformed input on the three operations: oversized bodies, wrong media
// types, prototype-pollution keys, unknown fields, and random JSON that must never
// produce a 5xx or an error in the log.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from '../../src/service.ts';
import { insertEmailTemplate } from '../../src/store/email-templates.ts';
import { touchWhatsappSession } from '../../src/store/whatsapp-sessions.ts';
import { captureLog } from '../support/captured-log.ts';
import { fuzzRequests, randomBodies } from '../support/fuzz.ts';
import { addWhatsappTemplate, emailBody, openAccount, post, postFrom, smsBody, startService, UUID } from '../support/service.ts';

const OPERATIONS = ['/v1/email', '/v1/sms/send', '/v1/whatsapp/sendTemplateMessage'] as const;

for (const url of OPERATIONS) {
  test(`${url}: a body over the configured limit gets 413 Request body is too large`, async (t) => {
    const service = await startService(t, { env: { HERALD_BODY_LIMIT: '2048' } });
    const account = await openAccount(service);
    const res = await post(service, url, account.apiKey, emailBody({ body: `<p>${'x'.repeat(4096)}</p>` }));
    assert.equal(res.statusCode, 413);
    assert.deepStrictEqual(res.json(), { message: 'Request body is too large' });
  });

  test(`${url}: a text/plain body gets 415 with a JSON message`, async (t) => {
    const service = await startService(t);
    const account = await openAccount(service);
    const res = await postFrom(service, url, { apiKey: account.apiKey, headers: { 'content-type': 'text/plain' }, body: JSON.stringify(emailBody()) });
    assert.equal(res.statusCode, 415);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.deepStrictEqual(res.json(), { message: 'Unsupported Media Type, send application/json' });
  });

  test(`${url}: a form-encoded body gets 415 with a JSON message`, async (t) => {
    const service = await startService(t);
    const account = await openAccount(service);
    const res = await postFrom(service, url, { apiKey: account.apiKey, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'to=ana%40example.org' });
    assert.equal(res.statusCode, 415);
    assert.deepStrictEqual(res.json(), { message: 'Unsupported Media Type, send application/json' });
  });

  test(`${url}: an empty JSON body gets 400 err 1`, async (t) => {
    const service = await startService(t);
    const account = await openAccount(service);
    const res = await post(service, url, account.apiKey, '');
    assert.equal(res.statusCode, 400);
    assert.deepStrictEqual(res.json(), { message: 'Invalid request, missing parameters. err 1' });
  });
}

test('a body just under the configured limit is accepted', async (t) => {
  const service = await startService(t, { env: { HERALD_BODY_LIMIT: '2048' } });
  const account = await openAccount(service);
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ body: `<p>${'x'.repeat(1500)}</p>` }));
  assert.equal(res.statusCode, 200);
});

test('a JSON content type with a charset parameter is accepted', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await postFrom(service, '/v1/email', { apiKey: account.apiKey, headers: { 'content-type': 'application/json; charset=utf-8' }, body: emailBody() });
  assert.equal(res.statusCode, 200);
});

// Raw JSON text, so the dangerous keys really are on the wire (JSON.stringify of an
// object literal would make `__proto__` the prototype, not a key).
const VALID_EMAIL_JSON = JSON.stringify(emailBody()).slice(1, -1);

const POLLUTION: readonly [string, string][] = [
  ['a top-level __proto__ key', `{"__proto__":{"polluted":"yes"},${VALID_EMAIL_JSON}}`],
  ['a top-level constructor.prototype key', `{"constructor":{"prototype":{"polluted":"yes"}},${VALID_EMAIL_JSON}}`],
  ['a __proto__ key inside from', `{${VALID_EMAIL_JSON.replace('"from":{', '"from":{"__proto__":{"polluted":"yes"},')}}`],
  ['a __proto__ key inside a recipient', `{${VALID_EMAIL_JSON.replace('"to":[{', '"to":[{"__proto__":{"polluted":"yes"},')}}`],
  ['a __proto__ key that tries to supply the subject', `{"__proto__":{"subject":"from the prototype"},${VALID_EMAIL_JSON}}`],
];

for (const [what, json] of POLLUTION) {
  test(`an email with ${what} is served as if it were absent and pollutes nothing`, async (t) => {
    const service = await startService(t);
    const account = await openAccount(service);
    const res = await post(service, '/v1/email', account.apiKey, json);
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().message, 'Email queued for delivery');
    assert.equal((({}) as Record<string, unknown>).polluted, undefined);
    assert.equal((({}) as Record<string, unknown>).subject, undefined);
    assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
  });
}

test('a __proto__ key cannot supply a missing subject', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const withoutSubject = JSON.stringify(emailBody({ subject: undefined })).slice(1, -1);
  const res = await post(service, '/v1/email', account.apiKey, `{"__proto__":{"subject":"sneaky"},${withoutSubject}}`);
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Subject missing or empty!' });
});

test('an SMS with a __proto__ key is served and pollutes nothing', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/sms/send', account.apiKey, `{"__proto__":{"polluted":"yes"},"message":"hi","mobile_numbers":["+5215512345678"]}`);
  assert.equal(res.statusCode, 200);
  assert.equal((({}) as Record<string, unknown>).polluted, undefined);
});

test('a WhatsApp message with a constructor.prototype key is served and pollutes nothing', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { balance: 10_000, whatsappPrice: 500 });
  const template = await addWhatsappTemplate(service, account.id);
  const res = await post(service, '/v1/whatsapp/sendTemplateMessage', account.apiKey,
    `{"constructor":{"prototype":{"polluted":"yes"}},"destination":"5215512345678","templateId":"${template.id}","params":["Ana","1"]}`);
  assert.equal(res.statusCode, 200);
  assert.equal((({}) as Record<string, unknown>).polluted, undefined);
});

test('template variables named __proto__ and constructor stay plain data', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const now = service.deps.clock();
  await insertEmailTemplate(service.deps.db, { id: 'tpl', accountId: account.id, name: 'x', subject: null, html: '<p>Hi</p>', text: null, createdAt: now, updatedAt: now });
  const fields = JSON.stringify(emailBody({ body: undefined, template_id: 'tpl' })).slice(1, -1);
  const res = await post(service, '/v1/email', account.apiKey, `{${fields},"variables":{"constructor":"c","toString":"t"}}`);
  assert.equal(res.statusCode, 200);
  assert.equal((({}) as Record<string, unknown>).polluted, undefined);
});

test('unknown fields in an email are ignored', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ priority: 'high', tracking: { opens: true }, options: { cc: [], bcc: [], sendAt: 'tomorrow' } }));
  assert.equal(res.statusCode, 200);
  const body = res.json();
  assert.match(body.to[0].msgid, UUID);
  assert.deepStrictEqual(body, { message: 'Email queued for delivery', to: [{ email: 'ana@example.org', msgid: body.to[0].msgid }] });
});

test('unknown fields in an SMS are ignored', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ sender_id: 'ACME', flash: true }));
  assert.equal(res.statusCode, 200);
  assert.equal(res.json().total_messages_sent, 1);
});

test('unknown fields in a WhatsApp message are ignored', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { balance: 10_000, whatsappPrice: 500 });
  const template = await addWhatsappTemplate(service, account.id);
  const res = await post(service, '/v1/whatsapp/sendTemplateMessage', account.apiKey, {
    destination: '5215512345678', templateId: template.id, params: ['Ana', '1'], language: 'es', header: { type: 'image' },
  });
  assert.equal(res.statusCode, 200);
  assert.equal(res.json().current_balance, 0.95);
});

// ---- Random input: whatever arrives, a clean answer and nothing logged at error ----
// A route that caught an exception and answered the catch-all 400 ("Could not send
// message, an error has ocurred") logged it: the log is what these tests watch.

async function fuzzSends(t: TestContext, url: string, valid: (service: Service, accountId: string) => Promise<Record<string, unknown>>, seed: number): Promise<void> {
  const log = captureLog();
  const service = await startService(t, { logger: log.logger });
  const account = await openAccount(service, { messagesLeft: 100_000, balance: 10_000_000, whatsappPrice: 500 });
  const statuses = await fuzzRequests(service, log, `Bearer ${account.apiKey}`, randomBodies(seed, 200, 'POST', url, await valid(service, account.id)), [200, 400, 401]);
  assert.ok((statuses.get(200) ?? 0) > 0, `no request of seed ${seed} was valid`);
  assert.ok((statuses.get(400) ?? 0) > 0, `no request of seed ${seed} was refused`);
}

test('200 random email bodies get a clean 200, 400 or 401 and log no error', async (t) => {
  await fuzzSends(t, '/v1/email', async () => emailBody({ options: { cc: [{ email: 'c@example.org' }] }, attachments: [{ filename: 'a.txt', path: 'data:text/plain;base64,aGk=' }] }), 1);
});

test('200 random SMS bodies get a clean 200, 400 or 401 and log no error', async (t) => {
  await fuzzSends(t, '/v1/sms/send', async () => smsBody(), 2);
});

test('200 random WhatsApp bodies get a clean 200, 400 or 401 and log no error', async (t) => {
  await fuzzSends(t, '/v1/whatsapp/sendTemplateMessage', async (service, accountId) => {
    const template = await addWhatsappTemplate(service, accountId);
    return { destination: '5215512345678', templateId: template.id, params: ['Ana', '1'] };
  }, 3);
});

test('200 random WhatsApp session bodies get a clean 200, 400 or 401 and log no error', async (t) => {
  await fuzzSends(t, '/v1/whatsapp/sendMessage', async (service, accountId) => {
    await touchWhatsappSession(service.deps.db, { accountId, destination: '5215512345678', at: service.deps.clock() });
    return { destination: '5215512345678', message: 'hello' };
  }, 4);
});
