// /v1/contacts: upsert by address, read, page, change, erase; consent entries for
// every change made through the API; isolation between accounts.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { Service } from '../../src/service.ts';
import { get, openAccount, post, send, startService, type TestAccount } from '../support/service.ts';

const T0 = Date.parse('2030-01-01T09:00:00.000Z');
const AT = '2030-01-01T09:00:00.000Z';
const LATER = '2030-01-01T09:01:00.000Z';
const INVALID = 'Invalid request, a field has the wrong type or value';

async function world(t: TestContext, env: Record<string, string> = {}): Promise<{ service: Service; account: TestAccount; clock: { now: number }; list: string }> {
  const clock = { now: T0 };
  const service = await startService(t, { clock: () => clock.now, env });
  const account = await openAccount(service);
  const list = (await post(service, '/v1/lists', account.apiKey, { name: 'Weekly', optin: 'single' })).json().list_id;
  return { service, account, clock, list };
}

const idOf = (res: LightMyRequestResponse): string => res.json().contact_id;

test('a new contact answers 201: the address lower-cased, its lists confirmed, the change in its consent', async (t) => {
  const { service, account, list } = await world(t);
  const res = await post(service, '/v1/contacts', account.apiKey, { email: 'Ana@Example.org', name: 'Ana', attributes: { city: 'Lima', plan: { tier: 'pro' } }, lists: [list] });
  assert.equal(res.statusCode, 201, res.body);
  assert.deepStrictEqual(res.json(), {
    contact_id: idOf(res), email: 'ana@example.org', name: 'Ana', attributes: { city: 'Lima', plan: { tier: 'pro' } },
    lists: [{ list_id: list, status: 'confirmed' }], created_at: AT, updated_at: AT,
    consent: [{ list_id: list, status: 'confirmed', source: 'api', at: AT, detail: {} }],
  });
});

test('the same address in another case answers 200: the name replaced, attributes merged (null removes one), no second consent entry', async (t) => {
  const { service, account, clock, list } = await world(t);
  const first = await post(service, '/v1/contacts', account.apiKey, { email: 'ana@example.org', name: 'Ana', attributes: { city: 'Lima', age: 30 }, lists: [list] });
  clock.now += 60_000;
  const again = await post(service, '/v1/contacts', account.apiKey, { email: 'ANA@example.ORG', name: 'Ana María', attributes: { age: null, vip: true }, lists: [list] });
  assert.equal(again.statusCode, 200);
  assert.deepStrictEqual(again.json(), {
    contact_id: idOf(first), email: 'ana@example.org', name: 'Ana María', attributes: { city: 'Lima', vip: true },
    lists: [{ list_id: list, status: 'confirmed' }], created_at: AT, updated_at: LATER,
    consent: [{ list_id: list, status: 'confirmed', source: 'api', at: AT, detail: {} }],
  });
});

test('a new contact past HERALD_ACCOUNT_MAX_CONTACTS is refused 403 and not stored; an existing address still updates', async (t) => {
  const { service, account, list } = await world(t, { HERALD_ACCOUNT_MAX_CONTACTS: '2' });
  const other = await openAccount(service, { name: 'other' });
  for (const email of ['ana@example.org', 'bob@example.org']) assert.equal((await post(service, '/v1/contacts', account.apiKey, { email, lists: [list] })).statusCode, 201);
  const refused = await post(service, '/v1/contacts', account.apiKey, { email: 'cid@example.org', lists: [list] });
  assert.deepStrictEqual([refused.statusCode, refused.json()], [403, {
    message: 'Account quota exceeded', detail: 'an account keeps at most 2 contacts (HERALD_ACCOUNT_MAX_CONTACTS)',
  }]);
  const updated = await post(service, '/v1/contacts', account.apiKey, { email: 'BOB@example.org', name: 'Bob' });
  assert.deepStrictEqual([updated.statusCode, updated.json().name], [200, 'Bob']);
  const listed = (await get(service, '/v1/contacts', account.apiKey)).json();
  assert.deepStrictEqual(listed.contacts.map((c: { email: string }) => c.email), ['ana@example.org', 'bob@example.org']);
  // The quota is the account's own: another account's contacts do not count against it.
  assert.equal((await post(service, '/v1/contacts', other.apiKey, { email: 'cid@example.org' })).statusCode, 201);
});

test('a contact without an address, or with a malformed one, is refused in the interface\'s words', async (t) => {
  const { service, account } = await world(t);
  for (const body of [{}, { email: '' }, { email: '  ' }, { email: null }]) {
    const res = await post(service, '/v1/contacts', account.apiKey, body);
    assert.deepStrictEqual([res.statusCode, res.json()], [400, { message: 'Email missing or empty!' }], JSON.stringify(body));
  }
  const wrong = await post(service, '/v1/contacts', account.apiKey, { email: 'Ana <ana@example.org>' });
  assert.deepStrictEqual([wrong.statusCode, wrong.json()], [400, { message: 'The email address has the wrong structure!', error: [{ email: 'Ana <ana@example.org>' }] }]);
});

test('a contact\'s address is checked before its other fields, on creation and on change', async (t) => {
  const { service, account } = await world(t);
  const created = await post(service, '/v1/contacts', account.apiKey, { email: '', phone: '1' });
  assert.deepStrictEqual([created.statusCode, created.json()], [400, { message: 'Email missing or empty!' }]);
  const ana = idOf(await post(service, '/v1/contacts', account.apiKey, { email: 'ana@example.org' }));
  const cleared = await send(service, 'PATCH', `/v1/contacts/${ana}`, account.apiKey, { email: null });
  assert.deepStrictEqual([cleared.statusCode, cleared.json()], [400, { message: 'Email missing or empty!' }]);
  const wrong = await send(service, 'PATCH', `/v1/contacts/${ana}`, account.apiKey, { email: 'ana', phone: '1' });
  assert.deepStrictEqual([wrong.statusCode, wrong.json()], [400, { message: 'The email address has the wrong structure!', error: [{ email: 'ana' }] }]);
});

test('bad names, attributes and list ids are refused with a detail', async (t) => {
  const { service, account } = await world(t);
  for (const [body, detail] of [
    [{ email: 'a@example.org', name: 5 }, 'name must be a string or null'],
    [{ email: 'a@example.org', attributes: [] }, 'attributes must be an object'],
    [{ email: 'a@example.org', attributes: { 'a.b': 1 } }, 'attribute name "a.b" must be 1 to 64 letters, digits, spaces, - or _'],
    [{ email: 'a@example.org', attributes: { a: { b: { c: { d: 1 } } } } }, 'attributes may nest at most 3 levels deep'],
    [{ email: 'a@example.org', attributes: { big: 'x'.repeat(17_000) } }, 'attributes must be at most 16384 bytes as JSON'],
    [{ email: 'a@example.org', lists: 'x' }, 'lists must be an array'],
    [{ email: 'a@example.org', lists: ['x'] }, 'lists[0] must be an id'],
    [{ email: 'a@example.org', phone: '1' }, 'phone is not a field of this request'],
  ] as const) {
    const res = await post(service, '/v1/contacts', account.apiKey, body);
    assert.deepStrictEqual([res.statusCode, res.json()], [400, { message: INVALID, detail }], JSON.stringify(body).slice(0, 80));
  }
});

test('a list of another account is answered 404 naming it, and nothing is stored', async (t) => {
  const { service, account, list } = await world(t);
  const other = await openAccount(service, { name: 'other' });
  const res = await post(service, '/v1/contacts', other.apiKey, { email: 'ana@example.org', lists: [list] });
  assert.deepStrictEqual([res.statusCode, res.json()], [404, { message: 'Not found', detail: 'lists[0] is not a list of this account' }]);
  assert.deepStrictEqual((await get(service, '/v1/contacts', other.apiKey)).json(), { contacts: [], next_cursor: null });
  assert.deepStrictEqual((await get(service, '/v1/contacts', account.apiKey)).json(), { contacts: [], next_cursor: null });
});

test('contacts come in pages in creation order, filtered by list or address', async (t) => {
  const { service, account, list } = await world(t);
  const ids: string[] = [];
  for (const email of ['a@example.org', 'b@example.org', 'c@example.org', 'd@example.org', 'e@example.org']) {
    ids.push(idOf(await post(service, '/v1/contacts', account.apiKey, { email, lists: email < 'c' ? [] : [list] })));
  }
  const pages: string[][] = [];
  let cursor: string | null = null;
  do {
    const res: LightMyRequestResponse = await get(service, `/v1/contacts?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`, account.apiKey);
    assert.equal(res.statusCode, 200, res.body);
    pages.push(res.json().contacts.map((c: { email: string }) => c.email));
    cursor = res.json().next_cursor;
  } while (cursor !== null);
  assert.deepStrictEqual(pages, [['a@example.org', 'b@example.org'], ['c@example.org', 'd@example.org'], ['e@example.org']]);

  const onList = (await get(service, `/v1/contacts?list_id=${list}`, account.apiKey)).json();
  assert.deepStrictEqual([onList.contacts.map((c: { contact_id: string }) => c.contact_id), onList.next_cursor], [ids.slice(2), null]);
  const one = (await get(service, '/v1/contacts?email=B@EXAMPLE.org', account.apiKey)).json();
  assert.deepStrictEqual(one, {
    contacts: [{ contact_id: ids[1], email: 'b@example.org', name: null, attributes: {}, lists: [], created_at: AT, updated_at: AT }], next_cursor: null,
  });
});

test('a bad cursor, limit or list_id is refused; another account\'s list_id answers 404', async (t) => {
  const { service, account, list } = await world(t);
  const other = await openAccount(service, { name: 'other' });
  for (const [query, detail] of [
    ['cursor=abc', 'cursor must be the next_cursor of a previous page'],
    ['limit=0', 'limit must be a whole number from 1 to 500'],
    ['limit=501', 'limit must be a whole number from 1 to 500'],
    ['limit=2&limit=3', 'limit must be a whole number from 1 to 500'],
    ['list_id=x', 'list_id must be an id'],
    ['sort=email', 'sort is not a field of this request'],
  ] as const) {
    const res = await get(service, `/v1/contacts?${query}`, account.apiKey);
    assert.deepStrictEqual([res.statusCode, res.json()], [400, { message: INVALID, detail }], query);
  }
  const res = await get(service, `/v1/contacts?list_id=${list}`, other.apiKey);
  assert.deepStrictEqual([res.statusCode, res.json()], [404, { message: 'Not found' }]);
});

test('PATCH changes name, attributes and address; an address another contact has answers 409', async (t) => {
  const { service, account, clock } = await world(t);
  const ana = idOf(await post(service, '/v1/contacts', account.apiKey, { email: 'ana@example.org', name: 'Ana', attributes: { city: 'Lima', age: 30 } }));
  await post(service, '/v1/contacts', account.apiKey, { email: 'bob@example.org' });
  clock.now += 60_000;
  const res = await send(service, 'PATCH', `/v1/contacts/${ana}`, account.apiKey, { email: 'Ana.Maria@example.org', name: null, attributes: { age: 31, city: null } });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepStrictEqual(res.json(), {
    contact_id: ana, email: 'ana.maria@example.org', name: null, attributes: { age: 31 }, lists: [], created_at: AT, updated_at: LATER, consent: [],
  });
  const taken = await send(service, 'PATCH', `/v1/contacts/${ana}`, account.apiKey, { email: 'BOB@example.org' });
  assert.deepStrictEqual([taken.statusCode, taken.json()], [409, { message: 'Already exists', detail: 'another contact has this email' }]);
  const empty = await send(service, 'PATCH', `/v1/contacts/${ana}`, account.apiKey, { email: '' });
  assert.deepStrictEqual([empty.statusCode, empty.json()], [400, { message: 'Email missing or empty!' }]);
});

test('PATCH unsubscribe leaves a list and a later sign-up through the API joins again, each change in the consent history', async (t) => {
  const { service, account, clock, list } = await world(t);
  const ana = idOf(await post(service, '/v1/contacts', account.apiKey, { email: 'ana@example.org', lists: [list] }));
  clock.now += 60_000;
  const left = await send(service, 'PATCH', `/v1/contacts/${ana}`, account.apiKey, { unsubscribe: [list] });
  assert.deepStrictEqual(left.json().lists, [{ list_id: list, status: 'unsubscribed' }]);
  clock.now += 60_000;
  const back = await post(service, '/v1/contacts', account.apiKey, { email: 'ana@example.org', lists: [list] });
  assert.deepStrictEqual(back.json().lists, [{ list_id: list, status: 'confirmed' }]);
  assert.deepStrictEqual(back.json().consent, [
    { list_id: list, status: 'confirmed', source: 'api', at: AT, detail: {} },
    { list_id: list, status: 'unsubscribed', source: 'api', at: LATER, detail: {} },
    { list_id: list, status: 'confirmed', source: 'api', at: '2030-01-01T09:02:00.000Z', detail: {} },
  ]);
  const both = await send(service, 'PATCH', `/v1/contacts/${ana}`, account.apiKey, { lists: [list], unsubscribe: [list] });
  assert.deepStrictEqual([both.statusCode, both.json()], [400, { message: INVALID, detail: `list ${list} is in both lists and unsubscribe` }]);
});

test('DELETE erases the contact; an address that had unsubscribed stays on the suppression list', async (t) => {
  const { service, account, list } = await world(t);
  const ana = idOf(await post(service, '/v1/contacts', account.apiKey, { email: 'ana@example.org', lists: [list] }));
  const bob = idOf(await post(service, '/v1/contacts', account.apiKey, { email: 'bob@example.org', lists: [list] }));
  await send(service, 'PATCH', `/v1/contacts/${ana}`, account.apiKey, { unsubscribe: [list] });
  for (const id of [ana, bob]) assert.equal((await send(service, 'DELETE', `/v1/contacts/${id}`, account.apiKey)).statusCode, 204);
  assert.deepStrictEqual((await get(service, `/v1/contacts/${ana}`, account.apiKey)).json(), { message: 'Not found' });
  assert.deepStrictEqual((await get(service, '/v1/contacts', account.apiKey)).json(), { contacts: [], next_cursor: null });
  assert.deepStrictEqual((await get(service, '/v1/suppressions', account.apiKey)).json(), {
    data: [{ email: 'ana@example.org', reason: 'unsubscribed', msgid: null, created_at: AT }], next_cursor: null,
  });
  const again = await send(service, 'DELETE', `/v1/contacts/${ana}`, account.apiKey);
  assert.deepStrictEqual([again.statusCode, again.json()], [404, { message: 'Not found' }]);
});

test('another account\'s contact answers 404 to GET, PATCH and DELETE, and stays as it was', async (t) => {
  const { service, account } = await world(t);
  const other = await openAccount(service, { name: 'other' });
  const ana = idOf(await post(service, '/v1/contacts', account.apiKey, { email: 'ana@example.org', name: 'Ana' }));
  for (const res of [
    await get(service, `/v1/contacts/${ana}`, other.apiKey),
    await send(service, 'PATCH', `/v1/contacts/${ana}`, other.apiKey, { name: 'Mine' }),
    await send(service, 'DELETE', `/v1/contacts/${ana}`, other.apiKey),
    await get(service, '/v1/contacts/not-an-id', account.apiKey),
  ]) assert.deepStrictEqual([res.statusCode, res.json()], [404, { message: 'Not found' }]);
  assert.equal((await get(service, `/v1/contacts/${ana}`, account.apiKey)).json().name, 'Ana');
  // The same address is a separate contact in each account.
  assert.equal((await post(service, '/v1/contacts', other.apiKey, { email: 'ana@example.org' })).statusCode, 201);
});
