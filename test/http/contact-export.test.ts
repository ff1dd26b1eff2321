// GET /v1/contacts/export: the account's contacts, or one list's, as CSV streamed page by page.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from '../../src/service.ts';
import { CONTACT_EXPORT_BATCH } from '../../src/app/contact-export.ts';
import { get, openAccount, post, startService, type TestAccount } from '../support/service.ts';

const T0 = Date.parse('2030-01-01T09:00:00.000Z');

async function world(t: TestContext): Promise<{ service: Service; account: TestAccount; weekly: string; news: string }> {
  const service = await startService(t, { clock: () => T0 });
  const account = await openAccount(service);
  const weekly = (await post(service, '/v1/lists', account.apiKey, { name: 'Weekly', optin: 'single' })).json().list_id as string;
  const news = (await post(service, '/v1/lists', account.apiKey, { name: 'News', optin: 'single' })).json().list_id as string;
  return { service, account, weekly, news };
}

test('the export of every contact is CSV with a header, one line per contact in creation order, attributes as JSON, formulas neutralised', async (t) => {
  const { service, account, weekly } = await world(t);
  await post(service, '/v1/contacts', account.apiKey, { email: 'ana@example.org', name: 'Ana, "la jefa"', attributes: { city: 'Lima' }, lists: [weekly] });
  await post(service, '/v1/contacts', account.apiKey, { email: 'bob@example.org', name: '=HYPERLINK("x")' });
  const res = await get(service, '/v1/contacts/export', account.apiKey);
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual([res.headers['content-type'], res.headers['content-disposition']], ['text/csv; charset=utf-8', 'attachment; filename="contacts.csv"']);
  assert.equal(res.body, [
    'email,name,created_at,attributes',
    'ana@example.org,"Ana, ""la jefa""",2030-01-01T09:00:00.000Z,"{""city"":""Lima""}"',
    'bob@example.org,"\'=HYPERLINK(""x"")",2030-01-01T09:00:00.000Z,{}',
    '',
  ].join('\r\n'));
});

test('the export of a list holds its members only, with their status', async (t) => {
  const { service, account, weekly, news } = await world(t);
  const ana = (await post(service, '/v1/contacts', account.apiKey, { email: 'ana@example.org', lists: [weekly] })).json().contact_id as string;
  await post(service, '/v1/contacts', account.apiKey, { email: 'bob@example.org', lists: [news] });
  await service.http.inject({
    method: 'PATCH', url: `/v1/contacts/${ana}`, headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ unsubscribe: [weekly] }),
  });
  const res = await get(service, `/v1/contacts/export?list_id=${weekly}`, account.apiKey);
  assert.equal(res.headers['content-disposition'], `attachment; filename="contacts-${weekly}.csv"`);
  assert.equal(res.body, 'email,name,status,created_at,attributes\r\nana@example.org,,unsubscribed,2030-01-01T09:00:00.000Z,{}\r\n');
});

test('an export longer than one page holds every contact once', async (t) => {
  const { service, account } = await world(t);
  const count = CONTACT_EXPORT_BATCH + 3;
  const csv = ['email', ...Array.from({ length: count }, (_, i) => `c${String(i).padStart(4, '0')}@example.org`)].join('\n');
  const imported = await service.http.inject({ method: 'POST', url: '/v1/contacts/imports', headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'text/csv' }, payload: csv });
  assert.equal(imported.statusCode < 300, true, imported.body);
  await service.imports?.drain();
  const lines = (await get(service, '/v1/contacts/export', account.apiKey)).body.trimEnd().split('\r\n');
  assert.deepStrictEqual([lines.length, new Set(lines).size, lines[1]?.split(',')[0], lines.at(-1)?.split(',')[0]], [count + 1, count + 1, 'c0000@example.org', `c${String(count - 1).padStart(4, '0')}@example.org`]);
});

test('a list of another account answers 404 and a malformed list id 400', async (t) => {
  const { service, weekly } = await world(t);
  const other = await openAccount(service, { name: 'other' });
  const foreign = await get(service, `/v1/contacts/export?list_id=${weekly}`, other.apiKey);
  const malformed = await get(service, '/v1/contacts/export?list_id=nope', other.apiKey);
  assert.deepStrictEqual([foreign.statusCode, foreign.json(), malformed.statusCode, malformed.json()], [
    404, { message: 'Not found' }, 400, { message: 'Invalid request, a field has the wrong type or value', detail: 'list_id must be an id' },
  ]);
});
