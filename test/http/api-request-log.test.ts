// GET /v1/api-keys/:keyId/requests: the requests a key made, newest first, as Resend
// shows them; owners and developers only, the account's own keys only, kept 30 days.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emailBody, get, issueKey, openAccount, post } from '../support/service.ts';
import { asUser, signedInUser, usersWorld, type UsersWorld } from '../support/users.ts';
import { purgeOldApiRequests } from '../../src/app/api-request-log.ts';

const DAY = 24 * 3600 * 1000;

/** A key of the account that made two requests: a send, then a refused read. */
async function keyThatMadeRequests(w: UsersWorld) {
  const key = await issueKey(w.service, w.account.id);
  const sent = await post(w.service, '/v1/email', key.apiKey, emailBody());
  w.clock.now += 1000;
  const missing = await get(w.service, '/v1/messages/01a221e0-0000-7000-8000-000000000000?secret=ana@example.org', key.apiKey);
  return { key, sent, missing };
}

test('a key\'s requests are listed newest first with method, path without its query, status, duration and request id', async (t) => {
  const w = await usersWorld(t);
  const { key, sent, missing } = await keyThatMadeRequests(w);
  const res = await get(w.service, `/v1/api-keys/${key.id}/requests`, w.account.apiKey);
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  assert.deepStrictEqual(body.data.map((r: Record<string, unknown>) => ({ method: r.method, path: r.path, status: r.status, request_id: r.request_id, created_at: r.created_at })), [
    { method: 'GET', path: '/v1/messages/01a221e0-0000-7000-8000-000000000000', status: 404, request_id: missing.headers['x-request-id'], created_at: '2030-01-01T09:00:01.000Z' },
    { method: 'POST', path: '/v1/email', status: 200, request_id: sent.headers['x-request-id'], created_at: '2030-01-01T09:00:00.000Z' },
  ]);
  assert.deepStrictEqual({ total: body.total, capped: body.total_capped, next: body.next_cursor }, { total: 2, capped: false, next: null });
  assert.ok(body.data.every((r: { duration_ms: number }) => Number.isInteger(r.duration_ms) && r.duration_ms >= 0));
});

test('a key\'s log pages with next_cursor', async (t) => {
  const w = await usersWorld(t);
  const { key, sent } = await keyThatMadeRequests(w);
  const first = (await get(w.service, `/v1/api-keys/${key.id}/requests?limit=1`, w.account.apiKey)).json();
  const second = (await get(w.service, `/v1/api-keys/${key.id}/requests?limit=1&cursor=${first.next_cursor}`, w.account.apiKey)).json();
  assert.deepStrictEqual(second.data.map((r: { request_id: string }) => r.request_id), [sent.headers['x-request-id']]);
  assert.equal(second.next_cursor, null);
});

test('another key\'s requests are not in this key\'s log', async (t) => {
  const w = await usersWorld(t);
  const { key } = await keyThatMadeRequests(w);
  const quiet = await issueKey(w.service, w.account.id);
  const res = await get(w.service, `/v1/api-keys/${quiet.id}/requests`, w.account.apiKey);
  assert.deepStrictEqual({ data: res.json().data, total: res.json().total }, { data: [], total: 0 });
  assert.notEqual(quiet.id, key.id);
});

test('another account\'s key is not found', async (t) => {
  const w = await usersWorld(t);
  const { key } = await keyThatMadeRequests(w);
  const other = await openAccount(w.service, { name: 'globex' });
  const res = await get(w.service, `/v1/api-keys/${key.id}/requests`, other.apiKey);
  assert.deepStrictEqual({ status: res.statusCode, body: res.json() }, { status: 404, body: { message: 'Not found' } });
});

test('a developer reads a key\'s log; a viewer is refused', async (t) => {
  const w = await usersWorld(t);
  const { key } = await keyThatMadeRequests(w);
  const developer = await signedInUser(w, 'dev@example.com', 'developer');
  const viewer = await signedInUser(w, 'view@example.com', 'viewer');
  const read = await asUser(w.service, developer, 'GET', `/v1/api-keys/${key.id}/requests`);
  const refused = await asUser(w.service, viewer, 'GET', `/v1/api-keys/${key.id}/requests`);
  assert.deepStrictEqual([read.statusCode, read.json().total, refused.statusCode, refused.json()], [200, 2, 401, { message: 'API key not authorized.' }]);
});

test('a signed-in user\'s requests go to no key\'s log', async (t) => {
  const w = await usersWorld(t);
  const key = await issueKey(w.service, w.account.id);
  const owner = await signedInUser(w, 'owner@example.com', 'owner');
  await asUser(w.service, owner, 'GET', '/v1/messages');
  const res = await asUser(w.service, owner, 'GET', `/v1/api-keys/${key.id}/requests`);
  assert.equal(res.json().total, 0);
});

test('the purge job deletes the entries older than 30 days and keeps the younger ones', async (t) => {
  const w = await usersWorld(t);
  const { key } = await keyThatMadeRequests(w);
  await get(w.service, `/v1/api-keys/${key.id}/requests`, w.account.apiKey);
  w.clock.now += 31 * DAY;
  await get(w.service, '/v1/messages', key.apiKey);
  await get(w.service, `/v1/api-keys/${key.id}/requests`, w.account.apiKey);
  assert.equal(await purgeOldApiRequests(w.service.deps), 3);
  const res = await get(w.service, `/v1/api-keys/${key.id}/requests`, w.account.apiKey);
  assert.deepStrictEqual(res.json().data.map((r: { path: string }) => r.path), ['/v1/messages']);
});

test('a started API process writes a key\'s requests within its next second, without anyone reading the log', async (t) => {
  const w = await usersWorld(t);
  const key = await issueKey(w.service, w.account.id);
  const sent = await post(w.service, '/v1/email', key.apiKey, emailBody());
  const stored = async () => w.service.store.db.selectFrom('api_requests').select(['path', 'status', 'request_id']).where('key_id', '=', key.id).execute()
    .then((rows) => rows.map((row) => ({ path: row.path, status: Number(row.status), request_id: row.request_id })));
  const from = Date.now();
  while ((await stored()).length === 0 && Date.now() - from < 3000) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepStrictEqual(await stored(), [{ path: '/v1/email', status: 200, request_id: sent.headers['x-request-id'] }]);
  assert.ok(Date.now() - from < 1500, `written after ${Date.now() - from} ms`);
});
