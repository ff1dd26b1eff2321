// Hostile and malformed input on the three operations: oversized bodies, wrong media
// types, prototype-pollution keys, unknown fields, and random JSON that must never
// produce a 5xx.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from '../../src/service.ts';
import { insertEmailTemplate } from '../../src/store/email-templates.ts';
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

// ---- Random input: whatever arrives, the answer is never a 5xx ----

/** mulberry32: a small seeded PRNG, so a failure can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = [
  'to', 'options', 'cc', 'bcc', 'from', 'replyTo', 'subject', 'body', 'template_id', 'variables', 'attachments', 'filename', 'path',
  'email', 'name', 'message', 'mobile_numbers', 'destination', 'templateId', 'params', '__proto__', 'constructor', 'prototype', '', 'toString',
];
const STRINGS = [
  '', ' ', 'ana@example.org', 'news@example.com', 'x@other.com', '@', 'a@b', '+5215512345678', '5215512345678', 'data:text/plain;base64,aGk=',
  'data:;base64,', 'https://example.org/a.pdf', 'ftp://x', '{{name}}', '{{#each}}', '\u0000', '\r\nBcc: evil@example.net', '💥'.repeat(50),
  'x'.repeat(500), 'null', '[]', '{}', 'Ünïcödé', '\ud800',
];

function randomValue(rand: () => number, depth: number): unknown {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
  const kind = Math.floor(rand() * (depth > 3 ? 5 : 8));
  switch (kind) {
    case 0: return null;
    case 1: return rand() < 0.5;
    case 2: return pick([0, -1, 1.5, 1e308, -0, 2 ** 53 + 1, 160, 161]);
    case 3: case 4: return pick(STRINGS);
    case 5: return Array.from({ length: Math.floor(rand() * 4) }, () => randomValue(rand, depth + 1));
    default: {
      const obj: Record<string, unknown> = {};
      for (let i = Math.floor(rand() * 5); i > 0; i--) obj[pick(KEYS)] = randomValue(rand, depth + 1);
      return obj;
    }
  }
}

/** A valid body with one to three fields replaced by random values, or a wholly random value. */
function randomBody(rand: () => number, valid: Record<string, unknown>): string {
  if (rand() < 0.3) return JSON.stringify(randomValue(rand, 0)) ?? 'null';
  const body: Record<string, unknown> = structuredClone(valid);
  const keys = [...Object.keys(valid), ...KEYS];
  for (let i = 1 + Math.floor(rand() * 3); i > 0; i--) {
    const key = keys[Math.floor(rand() * keys.length)] ?? 'to';
    if (rand() < 0.2) delete body[key];
    else body[key] = randomValue(rand, 1);
  }
  return JSON.stringify(body);
}

async function fuzz(service: Service, url: string, apiKey: string, valid: Record<string, unknown>, seed: number): Promise<void> {
  const rand = prng(seed);
  const statuses = new Map<number, number>();
  for (let i = 0; i < 200; i++) {
    const payload = randomBody(rand, valid);
    const res = await post(service, url, apiKey, payload);
    assert.ok(res.statusCode < 500, `request ${i} (seed ${seed}) got ${res.statusCode} ${res.body} for ${payload}`);
    assert.ok([200, 400, 401].includes(res.statusCode), `request ${i} (seed ${seed}) got ${res.statusCode} ${res.body} for ${payload}`);
    const body = res.json();
    assert.equal(typeof body, 'object');
    if (res.statusCode !== 200) assert.equal(typeof body.message, 'string', `request ${i}: ${res.body}`);
    statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
  }
  assert.ok((statuses.get(400) ?? 0) > 0);
}

test('200 random email bodies never get a 5xx', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 100_000 });
  await fuzz(service, '/v1/email', account.apiKey, emailBody({ options: { cc: [{ email: 'c@example.org' }] }, attachments: [{ filename: 'a.txt', path: 'data:text/plain;base64,aGk=' }] }), 1);
});

test('200 random SMS bodies never get a 5xx', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 100_000 });
  await fuzz(service, '/v1/sms/send', account.apiKey, smsBody(), 2);
});

test('200 random WhatsApp bodies never get a 5xx', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { balance: 10_000_000, whatsappPrice: 500 });
  const template = await addWhatsappTemplate(service, account.id);
  await fuzz(service, '/v1/whatsapp/sendTemplateMessage', account.apiKey, { destination: '5215512345678', templateId: template.id, params: ['Ana', '1'] }, 3);
});
