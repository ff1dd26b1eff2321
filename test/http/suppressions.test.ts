// GET/POST/DELETE /v1/suppressions: the account's list of addresses herald does not
// send to, its validation in the wire style, its pages, and its isolation per account.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { Service } from '../../src/service.ts';
import { exportAccountSuppressions } from '../../src/app/suppressions.ts';
import { longestTurnCpuMs } from '../support/event-loop-turns.ts';
import { emailBody, get, keyWithScopes, openAccount, post, readAccount, startService, type TestAccount } from '../support/service.ts';

const T0 = Date.parse('2030-01-01T09:00:00.000Z');
const AT = '2030-01-01T09:00:00.000Z';

async function world(t: TestContext): Promise<{ service: Service; account: TestAccount }> {
  const service = await startService(t, { clock: () => T0 });
  return { service, account: await openAccount(service) };
}

function remove(service: Service, apiKey: string, email: string): Promise<LightMyRequestResponse> {
  return service.http.inject({ method: 'DELETE', url: `/v1/suppressions/${encodeURIComponent(email)}`, headers: { authorization: `Bearer ${apiKey}` } });
}

const manual = (email: string) => ({ email, reason: 'manual', msgid: null, created_at: AT });

test('a new account has an empty list', async (t) => {
  const { service, account } = await world(t);
  const res = await get(service, '/v1/suppressions', account.apiKey);
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), { data: [], next_cursor: null });
});

test('adding one address answers its entry, lower-cased, with reason manual, and the list shows it', async (t) => {
  const { service, account } = await world(t);
  const res = await post(service, '/v1/suppressions', account.apiKey, { email: 'Ana@Example.org' });
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), { data: [manual('ana@example.org')] });
  assert.deepStrictEqual((await get(service, '/v1/suppressions', account.apiKey)).json(), { data: [manual('ana@example.org')], next_cursor: null });
});

test('adding several addresses answers each once, in the order given', async (t) => {
  const { service, account } = await world(t);
  const res = await post(service, '/v1/suppressions', account.apiKey, { emails: ['zoe@example.org', 'ana@example.org', 'ZOE@example.org'] });
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), { data: [manual('zoe@example.org'), manual('ana@example.org')] });
});

test('an address already suppressed keeps its first reason and time', async (t) => {
  let now = T0;
  const service = await startService(t, { clock: () => now });
  const account = await openAccount(service);
  await post(service, '/v1/suppressions', account.apiKey, { email: 'ana@example.org' });
  now += 60_000;
  const again = await post(service, '/v1/suppressions', account.apiKey, { emails: ['ana@example.org', 'bob@example.org'] });
  assert.deepStrictEqual(again.json(), { data: [manual('ana@example.org'), { ...manual('bob@example.org'), created_at: '2030-01-01T09:01:00.000Z' }] });
});

test('malformed addresses are refused, all of them listed, and none is added', async (t) => {
  const { service, account } = await world(t);
  const res = await post(service, '/v1/suppressions', account.apiKey, { emails: ['ana@example.org', 'not-an-address', 'Bob <bob@example.org>'] });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), {
    message: 'The email address has the wrong structure!',
    error: [{ email: 'not-an-address' }, { email: 'Bob <bob@example.org>' }],
  });
  assert.deepStrictEqual((await get(service, '/v1/suppressions', account.apiKey)).json().data, []);
});

test('a body without an address is refused with Email missing or empty!', async (t) => {
  const { service, account } = await world(t);
  for (const body of [{}, { email: '' }, { emails: [] }, { email: 42 }, { emails: ['ana@example.org', ' '] }]) {
    const res = await post(service, '/v1/suppressions', account.apiKey, body);
    assert.equal(res.statusCode, 400, JSON.stringify(body));
    assert.deepStrictEqual(res.json(), { message: 'Email missing or empty!' }, JSON.stringify(body));
  }
});

test('email and emails together, or emails not an array, are refused as a field error', async (t) => {
  const { service, account } = await world(t);
  const both = await post(service, '/v1/suppressions', account.apiKey, { email: 'a@example.org', emails: ['b@example.org'] });
  assert.deepStrictEqual([both.statusCode, both.json()], [400, { message: 'Invalid request, a field has the wrong type or value', detail: 'give email or emails, not both' }]);
  const notArray = await post(service, '/v1/suppressions', account.apiKey, { emails: 'a@example.org' });
  assert.deepStrictEqual([notArray.statusCode, notArray.json()], [400, { message: 'Invalid request, a field has the wrong type or value', detail: 'emails must be an array of at most 1000 addresses' }]);
});

test('a body that is not a JSON object is refused with the generic missing-parameters text', async (t) => {
  const { service, account } = await world(t);
  const res = await post(service, '/v1/suppressions', account.apiKey, '["ana@example.org"]');
  assert.deepStrictEqual([res.statusCode, res.json()], [400, { message: 'Invalid request, missing parameters. err 1' }]);
});

test('removing an address answers 204, matched without regard to case, and herald sends to it again', async (t) => {
  const { service, account } = await world(t);
  await post(service, '/v1/suppressions', account.apiKey, { email: 'ana@example.org' });
  const res = await remove(service, account.apiKey, 'ANA@example.org');
  assert.equal(res.statusCode, 204);
  assert.equal(res.body, '');
  assert.deepStrictEqual((await get(service, '/v1/suppressions', account.apiKey)).json().data, []);

  const sent = await post(service, '/v1/email', account.apiKey, emailBody());
  const view = await get(service, `/v1/messages/${sent.json().to[0].msgid}`, account.apiKey);
  assert.equal(view.json().status, 'queued');
});

test('removing an address that is not on the list answers 404 Not found', async (t) => {
  const { service, account } = await world(t);
  const res = await remove(service, account.apiKey, 'ana@example.org');
  assert.deepStrictEqual([res.statusCode, res.json()], [404, { message: 'Not found' }]);
});

test('removing something that is not an address answers 400 with it listed', async (t) => {
  const { service, account } = await world(t);
  const res = await remove(service, account.apiKey, 'nobody');
  assert.deepStrictEqual([res.statusCode, res.json()], [400, { message: 'The email address has the wrong structure!', error: [{ email: 'nobody' }] }]);
});

test('a manually suppressed address is dropped from a send: not billed, status dropped', async (t) => {
  const { service, account } = await world(t);
  await post(service, '/v1/suppressions', account.apiKey, { email: 'ana@example.org' });
  const before = (await readAccount(service, account.id)).messagesLeft;
  const sent = await post(service, '/v1/email', account.apiKey, emailBody({ to: [{ email: 'ana@example.org' }, { email: 'bob@example.org' }] }));
  assert.equal(sent.statusCode, 200);
  assert.equal((await readAccount(service, account.id)).messagesLeft, before - 1);
  const [ana, bob] = sent.json().to.map((r: { msgid: string }) => r.msgid);
  assert.equal((await get(service, `/v1/messages/${ana}`, account.apiKey)).json().status, 'dropped');
  assert.equal((await get(service, `/v1/messages/${bob}`, account.apiKey)).json().status, 'queued');
});

test('the list comes in pages in address order; next_cursor leads to the next page and is null on the last', async (t) => {
  const { service, account } = await world(t);
  await post(service, '/v1/suppressions', account.apiKey, { emails: ['e@example.org', 'c@example.org', 'a@example.org', 'd@example.org', 'b@example.org'] });
  const pages: string[][] = [];
  let cursor: string | null = null;
  do {
    const res: LightMyRequestResponse = await get(service, `/v1/suppressions?limit=2${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`, account.apiKey);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    pages.push(body.data.map((s: { email: string }) => s.email));
    cursor = body.next_cursor;
  } while (cursor !== null);
  assert.deepStrictEqual(pages, [['a@example.org', 'b@example.org'], ['c@example.org', 'd@example.org'], ['e@example.org']]);
});

test('a bad cursor or limit is refused with a field error', async (t) => {
  const { service, account } = await world(t);
  const INVALID = 'Invalid request, a field has the wrong type or value';
  for (const [query, detail] of [
    ['cursor=***', 'cursor must be the next_cursor of a previous page'],
    ['cursor=a&cursor=b', 'cursor must be the next_cursor of a previous page'],
    ['limit=0', 'limit must be a whole number from 1 to 500'],
    ['limit=501', 'limit must be a whole number from 1 to 500'],
    ['limit=ten', 'limit must be a whole number from 1 to 500'],
  ] as const) {
    const res = await get(service, `/v1/suppressions?${query}`, account.apiKey);
    assert.deepStrictEqual([res.statusCode, res.json()], [400, { message: INVALID, detail }], query);
  }
});

test('one account neither sees nor removes another account\'s suppressions', async (t) => {
  const { service, account } = await world(t);
  const other = await openAccount(service);
  await post(service, '/v1/suppressions', account.apiKey, { email: 'ana@example.org' });
  assert.deepStrictEqual((await get(service, '/v1/suppressions', other.apiKey)).json().data, []);
  assert.equal((await remove(service, other.apiKey, 'ana@example.org')).statusCode, 404);
  assert.deepStrictEqual((await get(service, '/v1/suppressions', account.apiKey)).json().data, [manual('ana@example.org')]);
  const sent = await post(service, '/v1/email', other.apiKey, emailBody());
  assert.equal((await get(service, `/v1/messages/${sent.json().to[0].msgid}`, other.apiKey)).json().status, 'queued');
});

test('a key without the email scope gets 401 API key not authorized.', async (t) => {
  const { service, account } = await world(t);
  const smsOnly = await keyWithScopes(service, account.id, ['sms']);
  for (const res of [
    await get(service, '/v1/suppressions', smsOnly),
    await post(service, '/v1/suppressions', smsOnly, { email: 'ana@example.org' }),
    await remove(service, smsOnly, 'ana@example.org'),
  ]) {
    assert.deepStrictEqual([res.statusCode, res.json()], [401, { message: 'API key not authorized.' }]);
  }
});

test('without a key the list answers 403 No API Key sent', async (t) => {
  const { service } = await world(t);
  const res = await service.http.inject({ method: 'GET', url: '/v1/suppressions' });
  assert.deepStrictEqual([res.statusCode, res.json()], [403, { error: 'No API Key sent' }]);
});

// ---- search and export ----

test('?q= lists only the addresses containing the text, without regard to case, LIKE\'s own characters taken literally', async (t) => {
  const { service, account } = await world(t);
  await post(service, '/v1/suppressions', account.apiKey, { emails: ['ana@example.org', 'bo@acme.test', 'ana_b@acme.test', 'anaxb@acme.test'] });
  const search = async (q: string) => (await get(service, `/v1/suppressions?q=${encodeURIComponent(q)}`, account.apiKey)).json().data.map((s: { email: string }) => s.email);
  assert.deepStrictEqual(await search('ACME'), ['ana_b@acme.test', 'anaxb@acme.test', 'bo@acme.test']);
  assert.deepStrictEqual(await search('a_b'), ['ana_b@acme.test']);
  assert.deepStrictEqual(await search('%'), []);
  assert.deepStrictEqual(await search(''), ['ana@example.org', 'ana_b@acme.test', 'anaxb@acme.test', 'bo@acme.test']);
});

test('?q= pages like the whole list', async (t) => {
  const { service, account } = await world(t);
  await post(service, '/v1/suppressions', account.apiKey, { emails: ['a1@acme.test', 'a2@acme.test', 'b@other.test', 'a3@acme.test'] });
  const first = (await get(service, '/v1/suppressions?q=acme&limit=2', account.apiKey)).json();
  const second = (await get(service, `/v1/suppressions?q=acme&limit=2&cursor=${first.next_cursor}`, account.apiKey)).json();
  assert.deepStrictEqual([...first.data, ...second.data].map((s: { email: string }) => s.email), ['a1@acme.test', 'a2@acme.test', 'a3@acme.test']);
  assert.equal(second.next_cursor, null);
});

test('the CSV export has a header and every address in address order, quoted where needed', async (t) => {
  const { service, account } = await world(t);
  await post(service, '/v1/suppressions', account.apiKey, { emails: ['zoe@example.org', '"a,b"@example.org'] });
  const res = await get(service, '/v1/suppressions/export', account.apiKey);
  assert.deepStrictEqual(
    { status: res.statusCode, type: res.headers['content-type'], disposition: res.headers['content-disposition'], body: res.body },
    {
      status: 200, type: 'text/csv; charset=utf-8', disposition: 'attachment; filename="suppressions.csv"',
      body: `email,reason,msgid,created_at\r\n"""a,b""@example.org",manual,,${AT}\r\nzoe@example.org,manual,,${AT}\r\n`,
    },
  );
});

test('the CSV export writes cells that a spreadsheet would evaluate as text, with a leading single quote', async (t) => {
  const { service, account } = await world(t);
  const added = await post(service, '/v1/suppressions', account.apiKey, { emails: ['=1+2@example.org', '+cmd@example.org', '-2@example.org', 'plain@example.org', '"=a,b"@example.org'] });
  assert.equal(added.statusCode, 200, added.body);
  const res = await get(service, '/v1/suppressions/export', account.apiKey);
  assert.equal(res.body, [
    'email,reason,msgid,created_at',
    `"""=a,b""@example.org",manual,,${AT}`,
    `'+cmd@example.org,manual,,${AT}`,
    `'-2@example.org,manual,,${AT}`,
    `'=1+2@example.org,manual,,${AT}`,
    `plain@example.org,manual,,${AT}`,
    '',
  ].join('\r\n'));
});

test('the CSV export reads past one batch and follows ?q=', async (t) => {
  const { service, account } = await world(t);
  const emails = Array.from({ length: 1001 }, (_, i) => `u${String(i).padStart(4, '0')}@example.org`);
  await post(service, '/v1/suppressions', account.apiKey, { emails: emails.slice(0, 1000) });
  await post(service, '/v1/suppressions', account.apiKey, { emails: emails.slice(1000) });
  const lines = (await get(service, '/v1/suppressions/export', account.apiKey)).body.split('\r\n');
  assert.equal(lines.length, 1 + 1001 + 1);
  assert.deepStrictEqual([lines[1], lines[1001], lines[1002]], [`u0000@example.org,manual,,${AT}`, `u1000@example.org,manual,,${AT}`, '']);
  const some = (await get(service, '/v1/suppressions/export?q=u099', account.apiKey)).body.split('\r\n').length - 2;
  assert.equal(some, 10);
});

/** `n` addresses suppressed for the account, written straight into the store; every 10,000th contains `needle`. */
async function suppressMany(service: Service, accountId: string, n: number): Promise<void> {
  for (let from = 0; from < n; from += 1000) {
    await service.deps.db.insertInto('suppressions').values(Array.from({ length: Math.min(1000, n - from) }, (_, i) => {
      const k = from + i;
      return { account_id: accountId, address: `${k % 10_000 === 0 ? 'needle' : 'u'}${String(k).padStart(6, '0')}@example.org`, reason: 'manual', message_id: null, created_at: T0 };
    })).execute();
  }
}

test('a CSV export of 100,000 addresses streams in slices: /healthz is answered meanwhile and no turn of the loop holds 50 ms of work', async (t) => {
  const { service, account } = await world(t);
  await suppressMany(service, account.id, 100_000);
  const order: string[] = [];
  const { value: [whole, rare], cpuMs } = await longestTurnCpuMs(async () => {
    const exported = get(service, '/v1/suppressions/export', account.apiKey).then((res) => (order.push('export'), res));
    const health = service.http.inject({ method: 'GET', url: '/healthz' }).then((res) => (order.push('healthz'), res));
    assert.equal((await health).statusCode, 200);
    return [await exported, await get(service, '/v1/suppressions/export?q=needle', account.apiKey)];
  });
  assert.deepStrictEqual(order, ['healthz', 'export']);
  const lines = whole.body.split('\r\n');
  assert.deepStrictEqual([whole.statusCode, lines.length, lines[1], lines[100_000]], [200, 100_002, `needle000000@example.org,manual,,${AT}`, `u099999@example.org,manual,,${AT}`]);
  // ?q= with ten matches in 100,000: slices of 20,000 addresses, each read bounded.
  assert.deepStrictEqual(rare.body.split('\r\n').slice(1, -1).map((l) => l.split(',')[0]),
    Array.from({ length: 10 }, (_, i) => `needle${String(i * 10_000).padStart(6, '0')}@example.org`));
  assert.ok(cpuMs < 50, `a turn of the loop held ${cpuMs} ms of work`);
});

test('a CSV export whose first slice takes longer than HERALD_HEAVY_READ_TIMEOUT_MS is refused with the 503 of heavy reads', async (t) => {
  const { service, account } = await world(t);
  await suppressMany(service, account.id, 40_000);
  const refused = await exportAccountSuppressions({ ...service.deps, heavyReadMs: 1 }, account.id, { q: 'needle' });
  assert.deepStrictEqual(refused, { ok: false, rejection: { code: 'readTimedOut', detail: 'the store was read for more than 1 ms (HERALD_HEAVY_READ_TIMEOUT_MS): narrow the lists or the filter' } });
});

test('the CSV export holds only the caller\'s account', async (t) => {
  const { service, account } = await world(t);
  const other = await openAccount(service, { name: 'other' });
  await post(service, '/v1/suppressions', other.apiKey, { email: 'secret@example.org' });
  assert.equal((await get(service, '/v1/suppressions/export', account.apiKey)).body, 'email,reason,msgid,created_at\r\n');
});
