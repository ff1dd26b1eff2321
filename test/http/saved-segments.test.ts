// /v1/segments: audiences saved by name, listed, replaced and deleted; each account's own.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { Service } from '../../src/service.ts';
import { get, openAccount, post, startService, type TestAccount } from '../support/service.ts';

const T0 = Date.parse('2030-01-01T09:00:00.000Z');
const AT = '2030-01-01T09:00:00.000Z';
const LATER = '2030-01-01T09:01:00.000Z';

async function world(t: TestContext) {
  const clock = { now: T0 };
  const service = await startService(t, { clock: () => clock.now });
  const account = await openAccount(service);
  const list = (await post(service, '/v1/lists', account.apiKey, { name: 'Weekly', optin: 'single' })).json().list_id as string;
  return { service, account, clock, list };
}

function call(service: Service, method: 'PUT' | 'DELETE', url: string, account: TestAccount, body?: unknown): Promise<LightMyRequestResponse> {
  return service.http.inject({
    method, url, headers: { authorization: `Bearer ${account.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

const LIMA = { field: 'attributes.city', eq: 'Lima' };

test('saving a segment answers 201 with its name, lists and filter', async (t) => {
  const { service, account, list } = await world(t);
  const res = await post(service, '/v1/segments', account.apiKey, { name: '  Lima readers ', lists: [list], filter: LIMA });
  assert.equal(res.statusCode, 201, res.body);
  assert.deepStrictEqual(res.json(), {
    segment_id: res.json().segment_id, name: 'Lima readers', lists: [list], exclude_lists: [], filter: LIMA, created_at: AT, updated_at: AT,
  });
});

test('saved segments are listed by name and read one by one', async (t) => {
  const { service, account, list } = await world(t);
  const zeta = (await post(service, '/v1/segments', account.apiKey, { name: 'Zeta', lists: [list] })).json();
  const alpha = (await post(service, '/v1/segments', account.apiKey, { name: 'Alpha', lists: [list], filter: LIMA })).json();
  assert.deepStrictEqual((await get(service, '/v1/segments', account.apiKey)).json(), { segments: [alpha, zeta] });
  assert.deepStrictEqual((await get(service, `/v1/segments/${zeta.segment_id}`, account.apiKey)).json(), zeta);
});

test('a second segment with the same name answers 409', async (t) => {
  const { service, account, list } = await world(t);
  const first = (await post(service, '/v1/segments', account.apiKey, { name: 'Lima', lists: [list] })).json();
  const res = await post(service, '/v1/segments', account.apiKey, { name: 'Lima', lists: [list] });
  assert.deepStrictEqual([res.statusCode, res.json()], [409, { message: 'Already exists', detail: `name: another segment (${first.segment_id}) has it` }]);
});

test('a bad filter answers 400 naming the node, and another account\'s list 404', async (t) => {
  const { service, account, list } = await world(t);
  const other = await openAccount(service, { name: 'other' });
  const bad = await post(service, '/v1/segments', account.apiKey, { name: 'Bad', lists: [list], filter: { field: 'attributes.city', like: 'L' } });
  const foreign = await post(service, '/v1/segments', other.apiKey, { name: 'Mine', lists: [list] });
  assert.deepStrictEqual([bad.statusCode, bad.json().message, foreign.statusCode, foreign.json()], [
    400, 'Invalid request, a field has the wrong type or value', 404, { message: 'Not found', detail: 'lists[0] is not a list of this account' },
  ]);
});

test('replacing a segment changes its name and audience and its updated_at', async (t) => {
  const { service, account, clock, list } = await world(t);
  const saved = (await post(service, '/v1/segments', account.apiKey, { name: 'Lima', lists: [list], filter: LIMA })).json();
  clock.now += 60_000;
  const res = await call(service, 'PUT', `/v1/segments/${saved.segment_id}`, account, { name: 'Everyone', lists: [list] });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepStrictEqual(res.json(), { ...saved, name: 'Everyone', filter: null, updated_at: LATER });
});

test('deleting a segment answers 204 and it is gone; another account cannot read, replace or delete it', async (t) => {
  const { service, account, list } = await world(t);
  const other = await openAccount(service, { name: 'other' });
  const saved = (await post(service, '/v1/segments', account.apiKey, { name: 'Lima', lists: [list] })).json();
  const url = `/v1/segments/${saved.segment_id}`;
  assert.deepStrictEqual([
    (await get(service, url, other.apiKey)).statusCode,
    (await call(service, 'PUT', url, other, { name: 'Mine', lists: [list] })).statusCode,
    (await call(service, 'DELETE', url, other)).statusCode,
  ], [404, 404, 404]);
  assert.equal((await call(service, 'DELETE', url, account)).statusCode, 204);
  assert.deepStrictEqual((await get(service, '/v1/segments', account.apiKey)).json(), { segments: [] });
});

test('a segment\'s sample holds its first contacts, narrowed by the filter, with their attributes', async (t) => {
  const { service, account, list } = await world(t);
  await post(service, '/v1/contacts', account.apiKey, { email: 'ana@example.org', name: 'Ana', attributes: { city: 'Lima' }, lists: [list] });
  await post(service, '/v1/contacts', account.apiKey, { email: 'bob@example.org', attributes: { city: 'Quito' }, lists: [list] });
  const cid = (await post(service, '/v1/contacts', account.apiKey, { email: 'cid@example.org', attributes: { city: 'Lima' }, lists: [list] })).json().contact_id;
  const res = await post(service, '/v1/segments/sample', account.apiKey, { lists: [list], filter: LIMA });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepStrictEqual(res.json().contacts.map((c: { email: string; name: string | null; attributes: unknown }) => [c.email, c.name, c.attributes]), [
    ['ana@example.org', 'Ana', { city: 'Lima' }], ['cid@example.org', null, { city: 'Lima' }],
  ]);
  assert.equal(res.json().contacts[1].contact_id, cid);
});
