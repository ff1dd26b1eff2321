// /v1/lists: create, read, change and delete an account's mailing lists; the rules a
// double opt-in list needs; isolation between accounts; the key's scope.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from '../../src/service.ts';
import { get, keyWithScopes, openAccount, post, send, startService, type TestAccount } from '../support/service.ts';

const T0 = Date.parse('2030-01-01T09:00:00.000Z');
const AT = '2030-01-01T09:00:00.000Z';
const INVALID = 'Invalid request, a field has the wrong type or value';
const NEWS_FROM = { email: 'news@example.com', name: 'Example News' };

async function world(t: TestContext): Promise<{ service: Service; account: TestAccount }> {
  const service = await startService(t, { clock: () => T0 });
  return { service, account: await openAccount(service) };
}

async function createList(service: Service, account: TestAccount, body: Record<string, unknown>): Promise<string> {
  const res = await post(service, '/v1/lists', account.apiKey, body);
  assert.equal(res.statusCode, 201, res.body);
  return res.json().list_id;
}

const none = { confirmed: 0, unconfirmed: 0, unsubscribed: 0 };

test('creating a single opt-in list answers 201 with the list as stored', async (t) => {
  const { service, account } = await world(t);
  const res = await post(service, '/v1/lists', account.apiKey, { name: ' Weekly ', optin: 'single', description: 'Our news' });
  assert.equal(res.statusCode, 201);
  const id = res.json().list_id;
  assert.deepStrictEqual(res.json(), {
    list_id: id, name: 'Weekly', optin: 'single', description: 'Our news', from: null, confirmation_template_id: null, created_at: AT,
  });
});

test('a double opt-in list keeps its sender, and the list reads back with its subscriber counts', async (t) => {
  const { service, account } = await world(t);
  const id = await createList(service, account, { name: 'News', optin: 'double', from: NEWS_FROM });
  const res = await get(service, `/v1/lists/${id}`, account.apiKey);
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), {
    list_id: id, name: 'News', optin: 'double', description: null, from: NEWS_FROM, confirmation_template_id: null, created_at: AT, subscribers: none,
  });
});

test('a double opt-in list without a sender is refused, and so is a sender of an unverified domain', async (t) => {
  const { service, account } = await world(t);
  const missing = await post(service, '/v1/lists', account.apiKey, { name: 'News', optin: 'double' });
  assert.deepStrictEqual([missing.statusCode, missing.json()], [400, { message: INVALID, detail: 'from is required for a double opt-in list: it sends the confirmation emails' }]);
  const unverified = await post(service, '/v1/lists', account.apiKey, { name: 'News', optin: 'double', from: { email: 'news@elsewhere.org', name: 'News' } });
  assert.deepStrictEqual([unverified.statusCode, unverified.json()], [401, { message: 'Domain not permitted. err 2' }]);
  const malformed = await post(service, '/v1/lists', account.apiKey, { name: 'News', optin: 'single', from: { email: 'news', name: 'News' } });
  assert.deepStrictEqual([malformed.statusCode, malformed.json()], [400, { message: 'The from address has the wrong structure!' }]);
});

test('malformed list bodies are refused with a detail naming the field', async (t) => {
  const { service, account } = await world(t);
  for (const [body, detail] of [
    [{ optin: 'single' }, 'name is required'],
    [{ name: '', optin: 'single' }, 'name must be 1 to 200 characters'],
    [{ name: '   ', optin: 'single' }, 'name must be 1 to 200 characters'],
    [{ name: 'x', optin: 'triple' }, 'optin must be one of: single, double'],
    [{ name: 'x', optin: 'single', optIn: 'double' }, 'optIn is not a field of this request'],
    [{ name: 'x', optin: 'single', description: 7 }, 'description must be a string or null'],
    [{ name: 'x', optin: 'single', from: 'news@example.com' }, 'from must be an object or null'],
    [{ name: 'x', optin: 'single', confirmation_template_id: 'abc' }, 'confirmation_template_id must be an id'],
  ] as const) {
    const res = await post(service, '/v1/lists', account.apiKey, body);
    assert.deepStrictEqual([res.statusCode, res.json()], [400, { message: INVALID, detail }], JSON.stringify(body));
  }
  const notObject = await post(service, '/v1/lists', account.apiKey, '["News"]');
  assert.deepStrictEqual([notObject.statusCode, notObject.json()], [400, { message: 'Invalid request, missing parameters. err 1' }]);
});

test('a confirmation template must exist in the account and place {{confirm_url}}', async (t) => {
  const { service, account } = await world(t);
  const unknown = await post(service, '/v1/lists', account.apiKey, { name: 'News', optin: 'double', from: NEWS_FROM, confirmation_template_id: '01a20000-0000-7000-8000-000000000000' });
  assert.deepStrictEqual([unknown.statusCode, unknown.json()], [400, { message: 'Could not find template' }]);
  const template = (await post(service, '/v1/email/templates', account.apiKey, { name: 'Confirm', html: '<p>Hello {{name}}</p>' })).json().template_id;
  const withoutLink = await post(service, '/v1/lists', account.apiKey, { name: 'News', optin: 'double', from: NEWS_FROM, confirmation_template_id: template });
  assert.deepStrictEqual([withoutLink.statusCode, withoutLink.json()], [400, { message: INVALID, detail: 'confirmation_template_id: the template\'s HTML must contain {{confirm_url}}' }]);
});

test('GET /v1/lists answers every list, oldest first, with subscribers per status', async (t) => {
  const { service, account } = await world(t);
  const weekly = await createList(service, account, { name: 'Weekly', optin: 'single' });
  const news = await createList(service, account, { name: 'News', optin: 'double', from: NEWS_FROM });
  await post(service, '/v1/contacts', account.apiKey, { email: 'ana@example.org', lists: [weekly, news] });
  const bob = (await post(service, '/v1/contacts', account.apiKey, { email: 'bob@example.org', lists: [weekly] })).json().contact_id;
  await send(service, 'PATCH', `/v1/contacts/${bob}`, account.apiKey, { unsubscribe: [weekly] });
  const res = await get(service, '/v1/lists', account.apiKey);
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), {
    lists: [
      { list_id: weekly, name: 'Weekly', optin: 'single', description: null, from: null, confirmation_template_id: null, created_at: AT, subscribers: { confirmed: 1, unconfirmed: 0, unsubscribed: 1 } },
      { list_id: news, name: 'News', optin: 'double', description: null, from: NEWS_FROM, confirmation_template_id: null, created_at: AT, subscribers: { confirmed: 0, unconfirmed: 1, unsubscribed: 0 } },
    ],
  });
});

test('PATCH changes the fields given and null clears description and from', async (t) => {
  const { service, account } = await world(t);
  const id = await createList(service, account, { name: 'News', optin: 'double', description: 'Old', from: NEWS_FROM });
  const res = await send(service, 'PATCH', `/v1/lists/${id}`, account.apiKey, { name: 'Newsletter', optin: 'single', description: null, from: null });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepStrictEqual(res.json(), {
    list_id: id, name: 'Newsletter', optin: 'single', description: null, from: null, confirmation_template_id: null, created_at: AT, subscribers: none,
  });
  const back = await send(service, 'PATCH', `/v1/lists/${id}`, account.apiKey, { optin: 'double' });
  assert.deepStrictEqual([back.statusCode, back.json()], [400, { message: INVALID, detail: 'from is required for a double opt-in list: it sends the confirmation emails' }]);
});

test('DELETE removes the list and its subscriptions; the contacts stay', async (t) => {
  const { service, account } = await world(t);
  const id = await createList(service, account, { name: 'News', optin: 'single' });
  const contact = (await post(service, '/v1/contacts', account.apiKey, { email: 'ana@example.org', lists: [id] })).json().contact_id;
  const res = await send(service, 'DELETE', `/v1/lists/${id}`, account.apiKey);
  assert.deepStrictEqual([res.statusCode, res.body], [204, '']);
  assert.deepStrictEqual((await get(service, `/v1/lists/${id}`, account.apiKey)).json(), { message: 'Not found' });
  const view = (await get(service, `/v1/contacts/${contact}`, account.apiKey)).json();
  assert.deepStrictEqual([view.lists, view.consent], [[], []]);
});

test('another account\'s list answers 404 to GET, PATCH and DELETE, and is left unchanged', async (t) => {
  const { service, account } = await world(t);
  const other = await openAccount(service, { name: 'other' });
  const id = await createList(service, account, { name: 'News', optin: 'single' });
  for (const res of [
    await get(service, `/v1/lists/${id}`, other.apiKey),
    await send(service, 'PATCH', `/v1/lists/${id}`, other.apiKey, { name: 'Mine' }),
    await send(service, 'DELETE', `/v1/lists/${id}`, other.apiKey),
  ]) assert.deepStrictEqual([res.statusCode, res.json()], [404, { message: 'Not found' }]);
  assert.deepStrictEqual((await get(service, '/v1/lists', other.apiKey)).json(), { lists: [] });
  assert.equal((await get(service, `/v1/lists/${id}`, account.apiKey)).json().name, 'News');
});

test('a key without the email scope is refused with API key not authorized.', async (t) => {
  const { service, account } = await world(t);
  const smsOnly = await keyWithScopes(service, account.id, ['sms']);
  for (const res of [await get(service, '/v1/lists', smsOnly), await post(service, '/v1/lists', smsOnly, { name: 'x', optin: 'single' })]) {
    assert.deepStrictEqual([res.statusCode, res.json()], [401, { message: 'API key not authorized.' }]);
  }
});
