import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { Service } from '../../src/service.ts';
import { insertWhatsappTemplate, type WhatsappTemplate } from '../../src/store/whatsapp-templates.ts';
import { get, keyWithScopes, openAccount, post, startService, type TestAccount } from '../support/service.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const T0 = Date.parse('2026-03-01T10:00:00.000Z');

/** A service whose clock the test moves by hand. */
async function startClocked(t: TestContext): Promise<{ service: Service; clock: { now: number } }> {
  const clock = { now: T0 };
  const service = await startService(t, { clock: () => clock.now });
  return { service, clock };
}

function put(service: Service, url: string, apiKey: string, body: unknown): Promise<LightMyRequestResponse> {
  return service.http.inject({
    method: 'PUT', url, headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` }, payload: JSON.stringify(body),
  });
}

function del(service: Service, url: string, apiKey: string): Promise<LightMyRequestResponse> {
  return service.http.inject({ method: 'DELETE', url, headers: { authorization: `Bearer ${apiKey}` } });
}

const welcome = {
  name: 'Welcome',
  subject: 'Welcome {{name}}',
  html: '<p>Hello {{name}}</p>',
  text: 'Hello {{name}}',
};

async function createTemplate(service: Service, account: TestAccount, body: unknown = welcome): Promise<string> {
  const res = await post(service, '/v1/email/templates', account.apiKey, body);
  assert.equal(res.statusCode, 201, res.body);
  return res.json().template_id;
}

const NOT_FOUND = { message: 'Not found' };
const syntax = (detail: string) => ({ message: 'Incorrect variable syntax', detail });
const invalidField = (detail: string) => ({ message: 'Invalid request, a field has the wrong type or value', detail });

test('creating an email template answers 201 with the stored template and a UUIDv7 id', async (t) => {
  const { service } = await startClocked(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/email/templates', account.apiKey, welcome);
  assert.equal(res.statusCode, 201);
  const body = res.json();
  assert.match(body.template_id, UUID_V7);
  assert.deepStrictEqual(body, {
    template_id: body.template_id,
    name: 'Welcome',
    subject: 'Welcome {{name}}',
    html: '<p>Hello {{name}}</p>',
    text: 'Hello {{name}}',
    created_at: '2026-03-01T10:00:00.000Z',
    updated_at: '2026-03-01T10:00:00.000Z',
  });
});

test('a created template reads back by its id with every field', async (t) => {
  const { service } = await startClocked(t);
  const account = await openAccount(service);
  const id = await createTemplate(service, account);
  const res = await get(service, `/v1/email/templates/${id}`, account.apiKey);
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), {
    template_id: id,
    name: 'Welcome',
    subject: 'Welcome {{name}}',
    html: '<p>Hello {{name}}</p>',
    text: 'Hello {{name}}',
    created_at: '2026-03-01T10:00:00.000Z',
    updated_at: '2026-03-01T10:00:00.000Z',
  });
});

test('a template without subject and text stores both as null', async (t) => {
  const { service } = await startClocked(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/email/templates', account.apiKey, { name: 'Bare', html: '<p>Hi</p>' });
  assert.equal(res.statusCode, 201);
  const body = res.json();
  assert.deepStrictEqual(body, {
    template_id: body.template_id, name: 'Bare', subject: null, html: '<p>Hi</p>', text: null,
    created_at: '2026-03-01T10:00:00.000Z', updated_at: '2026-03-01T10:00:00.000Z',
  });
});

test('an explicit null or empty subject and text are stored as null', async (t) => {
  const { service } = await startClocked(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/email/templates', account.apiKey, { name: 'Bare', html: '<p>Hi</p>', subject: null, text: '' });
  assert.equal(res.statusCode, 201);
  const body = res.json();
  assert.equal(body.subject, null);
  assert.equal(body.text, null);
});

test('replacing a template changes every field, keeps created_at and moves updated_at', async (t) => {
  const { service, clock } = await startClocked(t);
  const account = await openAccount(service);
  const id = await createTemplate(service, account);
  clock.now = T0 + 60_000;
  const replacement = { name: 'Welcome v2', subject: 'Hi {{name}}', html: '<h1>{{name}}</h1>', text: 'Hi {{name}}!' };
  const res = await put(service, `/v1/email/templates/${id}`, account.apiKey, replacement);
  assert.equal(res.statusCode, 200);
  const expected = {
    template_id: id, ...replacement, created_at: '2026-03-01T10:00:00.000Z', updated_at: '2026-03-01T10:01:00.000Z',
  };
  assert.deepStrictEqual(res.json(), expected);
  assert.deepStrictEqual((await get(service, `/v1/email/templates/${id}`, account.apiKey)).json(), expected);
});

test('replacing a template without subject and text clears them', async (t) => {
  const { service } = await startClocked(t);
  const account = await openAccount(service);
  const id = await createTemplate(service, account);
  const res = await put(service, `/v1/email/templates/${id}`, account.apiKey, { name: 'Plain', html: '<p>x</p>' });
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), {
    template_id: id, name: 'Plain', subject: null, html: '<p>x</p>', text: null,
    created_at: '2026-03-01T10:00:00.000Z', updated_at: '2026-03-01T10:00:00.000Z',
  });
});

test('deleting a template answers 204 with no body and the template is gone', async (t) => {
  const { service } = await startClocked(t);
  const account = await openAccount(service);
  const id = await createTemplate(service, account);
  const res = await del(service, `/v1/email/templates/${id}`, account.apiKey);
  assert.equal(res.statusCode, 204);
  assert.equal(res.body, '');
  const after = await get(service, `/v1/email/templates/${id}`, account.apiKey);
  assert.equal(after.statusCode, 404);
  assert.deepStrictEqual(after.json(), NOT_FOUND);
  assert.deepStrictEqual((await get(service, '/v1/email/templates', account.apiKey)).json(), { templates: [] });
});

test('deleting a template twice answers 404 the second time', async (t) => {
  const { service } = await startClocked(t);
  const account = await openAccount(service);
  const id = await createTemplate(service, account);
  assert.equal((await del(service, `/v1/email/templates/${id}`, account.apiKey)).statusCode, 204);
  const again = await del(service, `/v1/email/templates/${id}`, account.apiKey);
  assert.equal(again.statusCode, 404);
  assert.deepStrictEqual(again.json(), NOT_FOUND);
});

test('an unknown template id answers 404 to GET, PUT and DELETE', async (t) => {
  const { service } = await startClocked(t);
  const account = await openAccount(service);
  const url = '/v1/email/templates/01900000-0000-7000-8000-000000000000';
  for (const res of [await get(service, url, account.apiKey), await put(service, url, account.apiKey, welcome), await del(service, url, account.apiKey)]) {
    assert.equal(res.statusCode, 404);
    assert.deepStrictEqual(res.json(), NOT_FOUND);
  }
});

test('listing shows the account\'s templates in creation order, without html and text', async (t) => {
  const { service, clock } = await startClocked(t);
  const account = await openAccount(service);
  const first = await createTemplate(service, account);
  clock.now = T0 + 1000;
  const second = await createTemplate(service, account, { name: 'Receipt', html: '<p>Paid</p>' });
  const res = await get(service, '/v1/email/templates', account.apiKey);
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), {
    templates: [
      { template_id: first, name: 'Welcome', subject: 'Welcome {{name}}', created_at: '2026-03-01T10:00:00.000Z', updated_at: '2026-03-01T10:00:00.000Z' },
      { template_id: second, name: 'Receipt', subject: null, created_at: '2026-03-01T10:00:01.000Z', updated_at: '2026-03-01T10:00:01.000Z' },
    ],
  });
});

test('a new account lists no email templates', async (t) => {
  const { service } = await startClocked(t);
  const account = await openAccount(service);
  const res = await get(service, '/v1/email/templates', account.apiKey);
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), { templates: [] });
});

test('another account cannot read my template', async (t) => {
  const { service } = await startClocked(t);
  const mine = await openAccount(service);
  const theirs = await openAccount(service, { name: 'other' });
  const id = await createTemplate(service, mine);
  const res = await get(service, `/v1/email/templates/${id}`, theirs.apiKey);
  assert.equal(res.statusCode, 404);
  assert.deepStrictEqual(res.json(), NOT_FOUND);
});

test('another account cannot replace my template, and it stays as it was', async (t) => {
  const { service } = await startClocked(t);
  const mine = await openAccount(service);
  const theirs = await openAccount(service, { name: 'other' });
  const id = await createTemplate(service, mine);
  const res = await put(service, `/v1/email/templates/${id}`, theirs.apiKey, { name: 'Hijacked', html: '<p>pwned</p>' });
  assert.equal(res.statusCode, 404);
  assert.deepStrictEqual(res.json(), NOT_FOUND);
  const still = (await get(service, `/v1/email/templates/${id}`, mine.apiKey)).json();
  assert.equal(still.name, 'Welcome');
  assert.equal(still.html, '<p>Hello {{name}}</p>');
});

test('another account cannot delete my template, and it is still there', async (t) => {
  const { service } = await startClocked(t);
  const mine = await openAccount(service);
  const theirs = await openAccount(service, { name: 'other' });
  const id = await createTemplate(service, mine);
  const res = await del(service, `/v1/email/templates/${id}`, theirs.apiKey);
  assert.equal(res.statusCode, 404);
  assert.deepStrictEqual(res.json(), NOT_FOUND);
  assert.equal((await get(service, `/v1/email/templates/${id}`, mine.apiKey)).statusCode, 200);
});

test('another account\'s listing does not include my template', async (t) => {
  const { service } = await startClocked(t);
  const mine = await openAccount(service);
  const theirs = await openAccount(service, { name: 'other' });
  await createTemplate(service, mine);
  const theirTemplate = await createTemplate(service, theirs, { name: 'Theirs', html: '<p>t</p>' });
  const res = await get(service, '/v1/email/templates', theirs.apiKey);
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json().templates.map((x: { template_id: string }) => x.template_id), [theirTemplate]);
});

test('a key without the email scope is refused on every email template route', async (t) => {
  const { service } = await startClocked(t);
  const account = await openAccount(service);
  const id = await createTemplate(service, account);
  const smsOnly = await keyWithScopes(service, account.id, ['sms', 'whatsapp']);
  const responses = [
    await get(service, '/v1/email/templates', smsOnly),
    await post(service, '/v1/email/templates', smsOnly, welcome),
    await get(service, `/v1/email/templates/${id}`, smsOnly),
    await put(service, `/v1/email/templates/${id}`, smsOnly, welcome),
    await del(service, `/v1/email/templates/${id}`, smsOnly),
  ];
  for (const res of responses) {
    assert.equal(res.statusCode, 401);
    assert.deepStrictEqual(res.json(), { message: 'API key not authorized.' });
  }
  assert.equal((await get(service, '/v1/email/templates', account.apiKey)).json().templates.length, 1);
});

test('the template routes need an API key', async (t) => {
  const { service } = await startClocked(t);
  const res = await service.http.inject({ method: 'GET', url: '/v1/email/templates' });
  assert.equal(res.statusCode, 403);
  assert.deepStrictEqual(res.json(), { error: 'No API Key sent' });
});

test('saving html with an unclosed placeholder is refused with Incorrect variable syntax', async (t) => {
  const { service } = await startClocked(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/email/templates', account.apiKey, { name: 'Broken', html: '<p>Hello {{name</p>' });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), syntax('html: line 1, column 10: {{name</p> is never closed with }}'));
  assert.deepStrictEqual((await get(service, '/v1/email/templates', account.apiKey)).json(), { templates: [] });
});

test('saving html with a construct outside the allowed subset is refused with Incorrect variable syntax', async (t) => {
  const { service } = await startClocked(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/email/templates', account.apiKey, { name: 'Raw', html: '<p>{{{name}}}</p>' });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), syntax('html: line 1, column 4: {{{name}} is not a placeholder herald knows'));
});

test('saving a text part with a malformed placeholder is refused with Incorrect variable syntax', async (t) => {
  const { service } = await startClocked(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/email/templates', account.apiKey, { name: 'Broken', html: '<p>ok</p>', text: 'Hello {{#if name}}' });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), syntax('text: line 1, column 7: {{#if}} is never closed'));
});

test('saving a subject with a malformed placeholder is refused with Incorrect variable syntax', async (t) => {
  const { service } = await startClocked(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/email/templates', account.apiKey, { name: 'Broken', html: '<p>ok</p>', subject: 'Hello {{name' });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), syntax('subject: line 1, column 7: {{name is never closed with }}'));
});

test('replacing a template with malformed placeholders is refused and the template is unchanged', async (t) => {
  const { service } = await startClocked(t);
  const account = await openAccount(service);
  const id = await createTemplate(service, account);
  const res = await put(service, `/v1/email/templates/${id}`, account.apiKey, { name: 'Broken', html: '<p>{{name</p>' });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), syntax('html: line 1, column 4: {{name</p> is never closed with }}'));
  assert.equal((await get(service, `/v1/email/templates/${id}`, account.apiKey)).json().html, '<p>Hello {{name}}</p>');
});

test('a template name of exactly 200 characters is accepted', async (t) => {
  const { service } = await startClocked(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/email/templates', account.apiKey, { name: 'n'.repeat(200), html: '<p>x</p>' });
  assert.equal(res.statusCode, 201);
  assert.equal(res.json().name, 'n'.repeat(200));
});

const INVALID_BODIES: readonly { readonly what: string; readonly body: unknown; readonly detail: string }[] = [
  { what: 'a missing name', body: { html: '<p>x</p>' }, detail: 'name: must be a non-empty string of at most 200 characters, without control characters' },
  { what: 'a blank name', body: { name: '   ', html: '<p>x</p>' }, detail: 'name: must be a non-empty string of at most 200 characters, without control characters' },
  { what: 'a name of 201 characters', body: { name: 'n'.repeat(201), html: '<p>x</p>' }, detail: 'name: must be a non-empty string of at most 200 characters, without control characters' },
  { what: 'a name with a NUL character', body: { name: 'w\u0000', html: '<p>x</p>' }, detail: 'name: must be a non-empty string of at most 200 characters, without control characters' },
  { what: 'a name that is a number', body: { name: 7, html: '<p>x</p>' }, detail: 'name: must be a non-empty string of at most 200 characters, without control characters' },
  { what: 'a missing html', body: { name: 'x' }, detail: 'html: must be a non-empty string' },
  { what: 'an empty html', body: { name: 'x', html: '' }, detail: 'html: must be a non-empty string' },
  { what: 'an html that is an object', body: { name: 'x', html: { p: 'x' } }, detail: 'html: must be a non-empty string' },
  { what: 'a subject that is a number', body: { name: 'x', html: '<p>x</p>', subject: 1 }, detail: 'subject: must be a string or null' },
  { what: 'a text that is an array', body: { name: 'x', html: '<p>x</p>', text: ['x'] }, detail: 'text: must be a string or null' },
  { what: 'a body that is an array', body: [{ name: 'x', html: '<p>x</p>' }], detail: 'body: must be a JSON object' },
];

for (const { what, body, detail } of INVALID_BODIES) {
  test(`creating a template with ${what} answers 400 naming the field`, async (t) => {
    const { service } = await startClocked(t);
    const account = await openAccount(service);
    const res = await post(service, '/v1/email/templates', account.apiKey, body);
    assert.equal(res.statusCode, 400);
    assert.deepStrictEqual(res.json(), invalidField(detail));
  });
}

test('replacing a template with an invalid field answers 400 naming the field', async (t) => {
  const { service } = await startClocked(t);
  const account = await openAccount(service);
  const id = await createTemplate(service, account);
  const res = await put(service, `/v1/email/templates/${id}`, account.apiKey, { name: 'x', html: 42 });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), invalidField('html: must be a non-empty string'));
});

async function addWhatsapp(service: Service, accountId: string, fields: Partial<WhatsappTemplate>): Promise<string> {
  const id = service.deps.newId();
  await insertWhatsappTemplate(service.deps.db, {
    id, accountId, name: 'otp_code', language: 'en', body: 'Your code is {{1}}', paramCount: 1, status: 'APPROVED',
    createdAt: service.deps.clock(), updatedAt: service.deps.clock(), ...fields,
  });
  return id;
}

test('listing WhatsApp templates shows the account\'s templates with their approval status', async (t) => {
  const { service } = await startClocked(t);
  const account = await openAccount(service);
  const otp = await addWhatsapp(service, account.id, {});
  const promo = await addWhatsapp(service, account.id, { name: 'promo', language: 'es', body: 'Hola {{1}}, {{2}}', paramCount: 2, status: 'PENDING' });
  const res = await get(service, '/v1/whatsapp/templates', account.apiKey);
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), {
    templates: [
      { templateId: otp, name: 'otp_code', language: 'en', body: 'Your code is {{1}}', status: 'APPROVED', paramCount: 1, category: 'UTILITY', header: null, footer: null, submission: 'local', submissionError: null },
      { templateId: promo, name: 'promo', language: 'es', body: 'Hola {{1}}, {{2}}', status: 'PENDING', paramCount: 2, category: 'UTILITY', header: null, footer: null, submission: 'local', submissionError: null },
    ],
  });
});

test('listing WhatsApp templates leaves out other accounts\' templates', async (t) => {
  const { service } = await startClocked(t);
  const mine = await openAccount(service);
  const theirs = await openAccount(service, { name: 'other' });
  await addWhatsapp(service, theirs.id, {});
  const res = await get(service, '/v1/whatsapp/templates', mine.apiKey);
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), { templates: [] });
});

test('listing WhatsApp templates needs a key with the whatsapp scope', async (t) => {
  const { service } = await startClocked(t);
  const account = await openAccount(service);
  const emailOnly = await keyWithScopes(service, account.id, ['email']);
  const res = await get(service, '/v1/whatsapp/templates', emailOnly);
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'API key not authorized.' });
});

test('every template route is documented in the OpenAPI document under the templates tag', async (t) => {
  const { service } = await startClocked(t);
  const doc = (await service.http.inject({ method: 'GET', url: '/openapi.json' })).json();
  const operations = [
    doc.paths['/v1/email/templates'].get, doc.paths['/v1/email/templates'].post,
    doc.paths['/v1/email/templates/{template_id}'].get, doc.paths['/v1/email/templates/{template_id}'].put,
    doc.paths['/v1/email/templates/{template_id}'].delete, doc.paths['/v1/whatsapp/templates'].get,
  ];
  for (const operation of operations) {
    assert.deepStrictEqual(operation.tags, ['templates']);
    assert.equal(typeof operation.summary, 'string');
  }
  assert.deepStrictEqual(operations.map((operation) => operation.security), [
    [{ bearerAuth: ['email'] }], [{ bearerAuth: ['email'] }], [{ bearerAuth: ['email'] }], [{ bearerAuth: ['email'] }], [{ bearerAuth: ['email'] }],
    [{ bearerAuth: ['whatsapp'] }],
  ]);
});
