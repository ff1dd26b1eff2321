// The operator names the keys it issues (issue 24, the console's keys): a name too long
// is refused with a clear 400, never cut.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_TOKEN, openAccount, post, startService } from '../support/service.ts';

test('a key name of 500 characters is refused with the limit named, and no key is made', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const issue = (body: object) => service.http.inject({
    method: 'POST', url: `/admin/v1/accounts/${account.id}/api-keys`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: body,
  });
  const res = await issue({ name: 'k'.repeat(500), scopes: ['email'] });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Invalid request, a field has the wrong type or value', detail: 'name: must be 1 to 200 characters, without control characters' });
  const read = await service.http.inject({ method: 'GET', url: `/admin/v1/accounts/${account.id}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(read.json().apiKeys.length, 1);
});

test('an account name of 500 characters is refused with the limit named', async (t) => {
  const service = await startService(t);
  const res = await service.http.inject({
    method: 'POST', url: '/admin/v1/accounts', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: { name: 'a'.repeat(500) },
  });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Invalid request, a field has the wrong type or value', detail: 'name: must be 1 to 200 characters, without control characters' });
});

test('an account\'s own key name of 500 characters is refused with the limit named, not cut', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/api-keys', account.apiKey, { name: 'k'.repeat(500), scopes: ['email'] });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Invalid request, a field has the wrong type or value', detail: 'name: must be 1 to 200 characters, without control characters' });
});
