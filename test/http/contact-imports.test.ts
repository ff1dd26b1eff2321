// POST /v1/contacts/imports and GET …/:import_id: CSV and JSON bodies answered 202 at
// once and read in the background in batches; bad rows reported and the rest kept;
// bodies refused whole; resuming after a restart; isolation between accounts.
import { Readable } from 'node:stream';
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { runImport } from '../../src/app/contact-imports.ts';
import { claimImport, releaseImport } from '../../src/queue/imports/claim.ts';
import type { Service } from '../../src/service.ts';
import { get, openAccount, post, send, sharedStore, startService, startServiceOn, UUID, type TestAccount } from '../support/service.ts';

const T0 = Date.parse('2030-01-01T09:00:00.000Z');
const AT = '2030-01-01T09:00:00.000Z';

async function world(t: TestContext, env: Record<string, string> = {}): Promise<{ service: Service; account: TestAccount; list: string }> {
  const service = await startService(t, { clock: () => T0, env });
  const account = await openAccount(service);
  const list = (await post(service, '/v1/lists', account.apiKey, { name: 'Weekly', optin: 'single' })).json().list_id;
  return { service, account, list };
}

const upload = (service: Service, apiKey: string, body: string, type = 'text/csv', query = ''): Promise<LightMyRequestResponse> =>
  send(service, 'POST', `/v1/contacts/imports${query}`, apiKey, body, type);

/** Uploads, waits for the import to end, and answers its view. */
async function imported(service: Service, apiKey: string, body: string, type = 'text/csv', query = ''): Promise<Record<string, unknown>> {
  const res = await upload(service, apiKey, body, type, query);
  assert.equal(res.statusCode, 202, res.body);
  assert.deepStrictEqual(Object.keys(res.json()), ['import_id']);
  assert.match(res.json().import_id, UUID);
  await service.imports?.drain();
  const view = await get(service, `/v1/contacts/imports/${res.json().import_id}`, apiKey);
  assert.equal(view.statusCode, 200);
  return view.json();
}

const finished = (id: unknown, fields: Record<string, unknown>) => ({
  import_id: id, list_id: null, status: 'finished', rows: 0, created: 0, updated: 0, rejected: 0, errors: [], failure: null, created_at: AT, finished_at: AT, ...fields,
});

test('a CSV import creates contacts with name and attributes, rejects bad rows with their numbers, and joins the list', async (t) => {
  const { service, account, list } = await world(t);
  const csv = 'Email,name,city,age,zip\r\nana@example.org,Ana,Lima,30,01234\r\nnot-an-address,Bob,,,\r\n,Nobody,,,\r\n"cid@example.org","Cid, Jr.",Quito,,\r\nANA@example.org,,Cusco,,\r\nd@example.org,D,x,y,z,extra\r\n';
  const view = await imported(service, account.apiKey, csv, 'text/csv', `?list_id=${list}`);
  assert.deepStrictEqual(view, finished(view['import_id'], {
    list_id: list, rows: 6, created: 2, updated: 1, rejected: 3,
    errors: [
      { row: 2, message: 'The email address has the wrong structure!' },
      { row: 3, message: 'Email missing or empty!' },
      { row: 6, message: 'the row has 6 fields, the header 5' },
    ],
  }));
  const contacts = (await get(service, '/v1/contacts', account.apiKey)).json().contacts;
  assert.deepStrictEqual(contacts.map((c: Record<string, unknown>) => [c['email'], c['name'], c['attributes'], c['lists']]), [
    ['ana@example.org', 'Ana', { city: 'Cusco', age: 30, zip: '01234' }, [{ list_id: list, status: 'confirmed' }]],
    ['cid@example.org', 'Cid, Jr.', { city: 'Quito' }, [{ list_id: list, status: 'confirmed' }]],
  ]);
  const ana = (await get(service, `/v1/contacts/${contacts[0].contact_id}`, account.apiKey)).json();
  assert.deepStrictEqual(ana.consent, [{ list_id: list, status: 'confirmed', source: 'import', at: AT, detail: { import_id: view['import_id'] } }]);
});

test('a JSON array imports the same way, each element checked on its own', async (t) => {
  const { service, account } = await world(t);
  const body = JSON.stringify([
    { email: 'ana@example.org', name: 'Ana', attributes: { tags: ['vip'] } }, 7, { email: 'bob' }, { email: 'cid@example.org', phone: '1' }, { email: 'dee@example.org' },
  ]);
  const view = await imported(service, account.apiKey, body, 'application/json');
  assert.deepStrictEqual(view, finished(view['import_id'], {
    rows: 5, created: 2, rejected: 3,
    errors: [
      { row: 2, message: 'the row must be an object with email' },
      { row: 3, message: 'The email address has the wrong structure!' },
      { row: 4, message: 'phone is not a field of this request' },
    ],
  }));
});

test('an import never signs up again a contact who unsubscribed from the list', async (t) => {
  const { service, account, list } = await world(t);
  const ana = (await post(service, '/v1/contacts', account.apiKey, { email: 'ana@example.org', lists: [list] })).json().contact_id;
  await send(service, 'PATCH', `/v1/contacts/${ana}`, account.apiKey, { unsubscribe: [list] });
  const view = await imported(service, account.apiKey, 'email\nana@example.org\n', 'text/csv', `?list_id=${list}`);
  assert.deepStrictEqual([view['updated'], view['created']], [1, 0]);
  assert.deepStrictEqual((await get(service, `/v1/contacts/${ana}`, account.apiKey)).json().lists, [{ list_id: list, status: 'unsubscribed' }]);
});

test('rows are committed in batches of 250 and counted across them', async (t) => {
  const { service, account } = await world(t);
  const rows = Array.from({ length: 2500 }, (_, i) => `c${i}@example.org,${i % 500 === 0 ? 'bad@' : ''}`);
  const csv = `email,note\n${rows.map((r) => (r.endsWith('bad@') ? 'bad@,x' : r)).join('\n')}\n`;
  const view = await imported(service, account.apiKey, csv);
  assert.deepStrictEqual([view['rows'], view['created'], view['rejected'], (view['errors'] as unknown[]).length], [2500, 2495, 5, 5]);
  assert.deepStrictEqual((view['errors'] as { row: number }[]).map((e) => e.row), [1, 501, 1001, 1501, 2001]);
});

test('bodies that cannot be an import are refused at once', async (t) => {
  const { service, account } = await world(t);
  for (const [body, type, status, answer] of [
    ['', 'text/csv', 400, { message: 'The import has no rows' }],
    ['\n\n', 'text/csv', 400, { message: 'The import has no rows' }],
    ['name,city\nAna,Lima\n', 'text/csv', 400, { message: 'The CSV header has no email column' }],
    ['email,a.b\nx@example.org,1\n', 'text/csv', 400, { message: 'Invalid request, a field has the wrong type or value', detail: 'CSV column 2 ("a.b") is not an attribute name: use 1 to 64 letters, digits, spaces, - or _' }],
    ['email,email\nx@example.org,y\n', 'text/csv', 400, { message: 'Invalid request, a field has the wrong type or value', detail: 'the CSV header names column "email" twice' }],
    ['{"email":"x@example.org"}', 'application/json', 400, { message: 'A JSON import must be an array of contacts' }],
    ['email\nx@example.org\n', 'text/plain', 415, { message: 'Unsupported Media Type, send text/csv or application/json' }],
  ] as const) {
    const res = await upload(service, account.apiKey, body, type);
    assert.deepStrictEqual([res.statusCode, res.json()], [status, answer], `${type} ${JSON.stringify(body)}`);
  }
  const unknownList = await upload(service, account.apiKey, 'email\nx@example.org\n', 'text/csv', '?list_id=01a20000-0000-7000-8000-000000000000');
  assert.deepStrictEqual([unknownList.statusCode, unknownList.json()], [404, { message: 'Not found', detail: 'list_id is not a list of this account' }]);
});

test('a body over HERALD_IMPORT_BODY_LIMIT is refused with 413 and leaves nothing behind', async (t) => {
  const { service, account } = await world(t, { HERALD_IMPORT_BODY_LIMIT: '2048' });
  const csv = `email\n${Array.from({ length: 200 }, (_, i) => `c${i}@example.org`).join('\n')}\n`;
  const res = await upload(service, account.apiKey, csv);
  assert.deepStrictEqual([res.statusCode, res.json()], [413, { message: 'Request body is too large' }]);
  const streamed = await service.http.inject({
    method: 'POST', url: '/v1/contacts/imports', headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'text/csv', 'transfer-encoding': 'chunked' },
    payload: Readable.from((function* () { yield 'email\n'; for (let i = 0; i < 100; i += 1) yield `c${i}@example.org\n`.padEnd(40, ' '); })()),
  });
  assert.deepStrictEqual([streamed.statusCode, streamed.json()], [413, { message: 'Request body is too large' }]);
  await service.imports?.drain();
  assert.deepStrictEqual(await service.deps.db.selectFrom('contact_imports').select('id').execute(), []);
});

test('a body that breaks midway ends the import failed, saying where, with the rows before it kept', async (t) => {
  const { service, account } = await world(t);
  const csv = await imported(service, account.apiKey, 'email\nana@example.org\n"bob@example.org\n');
  assert.deepStrictEqual([csv['status'], csv['created'], csv['failure']], [
    'failed', 1, 'The CSV is malformed: Quote Not Closed: the parsing is finished with an opening quote at line 3; the rows before it were imported',
  ]);
  const json = await imported(service, account.apiKey, '[{"email":"cid@example.org"}, {"email": ', 'application/json');
  assert.deepStrictEqual([json['status'], json['rows'], json['created']], ['failed', 1, 1]);
  assert.match(String(json['failure']), /^The JSON is malformed: .*; the rows before it were imported$/);
});

test('an import into a double opt-in list that the account cannot pay for stops failed, naming the rows', async (t) => {
  const { service } = await world(t);
  const account = await openAccount(service, { name: 'small', messagesLeft: 1 });
  const list = (await post(service, '/v1/lists', account.apiKey, { name: 'News', optin: 'double', from: { email: 'news@example.com', name: 'News' } })).json().list_id;
  const view = await imported(service, account.apiKey, 'email\na@example.org\nb@example.org\n', 'text/csv', `?list_id=${list}`);
  assert.deepStrictEqual([view['status'], view['rows'], view['created'], view['failure']], [
    'failed', 0, 0, 'No messages left, please buy more messages: the confirmation emails of rows 1 to 2 could not be paid for, so those rows and the rest were not imported',
  ]);
});

test('another account\'s import answers 404', async (t) => {
  const { service, account } = await world(t);
  const other = await openAccount(service, { name: 'other' });
  const view = await imported(service, account.apiKey, 'email\nana@example.org\n');
  for (const res of [await get(service, `/v1/contacts/imports/${view['import_id']}`, other.apiKey), await get(service, '/v1/contacts/imports/nope', account.apiKey)]) {
    assert.deepStrictEqual([res.statusCode, res.json()], [404, { message: 'Not found' }]);
  }
});

test('an import whose process died midway, holding it, is resumed by the next process after its last committed batch', async (t) => {
  const store = await sharedStore(t);
  const first = await startServiceOn(t, store, { clock: () => T0, imports: false });
  const account = await openAccount(first);
  const csv = `email,n\n${Array.from({ length: 3500 }, (_, i) => `c${i}@example.org,${i}`).join('\n')}\n`;
  const res = await upload(first, account.apiKey, csv);
  assert.equal(res.statusCode, 202);
  const id: string = res.json().import_id;
  // A runner that commits one batch and is gone (killed) without letting go of its lease.
  const claimed = await claimImport(first.deps.db, first.store.capabilities, 'a-runner-that-dies', T0, 60_000);
  assert.equal(claimed?.id, id);
  assert.equal(await runImport(first.deps, claimed!, 'a-runner-that-dies', 60_000, () => false), 'stopped');
  const midway = (await get(first, `/v1/contacts/imports/${id}`, account.apiKey)).json();
  assert.deepStrictEqual([midway.status, midway.rows, midway.created], ['running', 250, 250]);
  await first.close();

  // The next process takes it over once the lease has run out, and reads on from row 251.
  const second = await startServiceOn(t, store, { clock: () => T0 + 61_000 });
  await second.imports?.drain();
  const view = (await get(second, `/v1/contacts/imports/${id}`, account.apiKey)).json();
  assert.deepStrictEqual([view.status, view.rows, view.created, view.updated, view.rejected], ['finished', 3500, 3500, 0, 0]);
  const contacts = await second.deps.db.selectFrom('contacts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const chunks = await second.deps.db.selectFrom('contact_import_chunks').select('seq').execute();
  assert.deepStrictEqual([Number(contacts.n), chunks], [3500, []]);
});

test('a CSV row with fewer fields than the header is refused, as one with more', async (t) => {
  const { service, account } = await world(t);
  const view = await imported(service, account.apiKey, 'email,name,city\r\na@example.org,Ana,Lima\r\nb@example.org,Bob\r\nc@example.org\r\nd@example.org,D,x,y\r\n');
  assert.deepStrictEqual(view, finished(view['import_id'], {
    rows: 4, created: 1, rejected: 3,
    errors: [
      { row: 2, message: 'the row has 2 fields, the header 3' },
      { row: 3, message: 'the row has 1 fields, the header 3' },
      { row: 4, message: 'the row has 4 fields, the header 3' },
    ],
  }));
});

const NOT_UTF8 = 'the row is not UTF-8 text (it holds bytes of another encoding, or U+FFFD): send UTF-8, or name the charset in Content-Type';

test('a CSV row in Latin-1 is refused with its number, never stored with U+FFFD; a declared charset is decoded', async (t) => {
  const { service, account } = await world(t);
  const latin1 = Buffer.concat([Buffer.from('email,city\na@example.org,Lima\nb@example.org,'), Buffer.from('Bogot\xe1', 'latin1'), Buffer.from('\nc@example.org,Quito\n')]);
  const res = await service.http.inject({ method: 'POST', url: '/v1/contacts/imports', headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'text/csv' }, payload: latin1 });
  assert.equal(res.statusCode, 202, res.body);
  await service.imports?.drain();
  const view = (await get(service, `/v1/contacts/imports/${res.json().import_id}`, account.apiKey)).json();
  assert.deepStrictEqual([view.rows, view.created, view.rejected, view.errors], [3, 2, 1, [{ row: 2, message: NOT_UTF8 }]]);

  const declared = await service.http.inject({
    method: 'POST', url: '/v1/contacts/imports', headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'text/csv; charset=ISO-8859-1' }, payload: latin1,
  });
  assert.equal(declared.statusCode, 202, declared.body);
  await service.imports?.drain();
  const contacts = (await get(service, '/v1/contacts', account.apiKey)).json().contacts;
  assert.deepStrictEqual(contacts.map((c: { email: string; attributes: unknown }) => [c.email, c.attributes]), [
    ['a@example.org', { city: 'Lima' }], ['c@example.org', { city: 'Quito' }], ['b@example.org', { city: 'Bogotá' }],
  ]);

  const unknown = await upload(service, account.apiKey, 'email\na@example.org\n', 'text/csv; charset=klingon');
  assert.deepStrictEqual([unknown.statusCode, unknown.json()], [400, { message: 'Invalid request, a field has the wrong type or value', detail: 'the charset of Content-Type is not one herald can decode' }]);
});

test('a JSON element past its bounds is a refused row, and the elements after it are imported', async (t) => {
  const { service, account } = await world(t);
  const zeros = `{"email":"zeros@example.org","attributes":{"z":[${'0,'.repeat(2_000_000)}0]}}`;
  const body = `[${zeros}, {"email":"deep@example.org","attributes":${'{"a":'.repeat(9)}1${'}'.repeat(9)}},`
    + ` {"email":"many@example.org","attributes":{"a":[${'0,'.repeat(10_000)}0]}}, {"email":"ok@example.org"}]`;
  const res = await upload(service, account.apiKey, body, 'application/json');
  assert.equal(res.statusCode, 202, res.body);
  await service.imports?.drain();
  const view = (await get(service, `/v1/contacts/imports/${res.json().import_id}`, account.apiKey)).json();
  assert.deepStrictEqual([view.status, view.rows, view.created, view.rejected, view.errors], ['finished', 4, 1, 3, [
    { row: 1, message: 'the row is longer than 65536 characters' },
    { row: 2, message: 'the row nests deeper than 8 levels' },
    { row: 3, message: 'the row has more than 10000 values' },
  ]]);
});

test('a JSON element that is not UTF-8 is refused with its number; an escaped \\ufffd is text', async (t) => {
  const { service, account } = await world(t);
  const body = Buffer.concat([Buffer.from('[{"email":"a@example.org","name":"'), Buffer.from('Jos\xe9', 'latin1'), Buffer.from('"}, {"email":"b@example.org","name":"x\\ufffd"}]')]);
  const res = await service.http.inject({ method: 'POST', url: '/v1/contacts/imports', headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' }, payload: body });
  await service.imports?.drain();
  const view = (await get(service, `/v1/contacts/imports/${res.json().import_id}`, account.apiKey)).json();
  assert.deepStrictEqual([view.rows, view.created, view.errors], [2, 1, [{ row: 1, message: NOT_UTF8 }]]);
});

test('an account has at most HERALD_ACCOUNT_MAX_IMPORTS imports in flight and HERALD_ACCOUNT_MAX_UPLOAD_BYTES of their bodies', async (t) => {
  const service = await startService(t, { clock: () => T0, imports: false, env: { HERALD_ACCOUNT_MAX_IMPORTS: '2', HERALD_ACCOUNT_MAX_UPLOAD_BYTES: '4096' } });
  const account = await openAccount(service);
  const other = await openAccount(service, { name: 'other' });
  const rows = (n: number) => `email\n${Array.from({ length: n }, (_, i) => `c${i}@example.org`).join('\n')}\n`;
  assert.equal((await upload(service, account.apiKey, rows(10))).statusCode, 202);
  const tooBig = await upload(service, account.apiKey, rows(300));
  assert.deepStrictEqual([tooBig.statusCode, tooBig.json()], [403, {
    message: 'Account quota exceeded', detail: 'an account stores at most 4096 bytes of imports in flight (HERALD_ACCOUNT_MAX_UPLOAD_BYTES)',
  }]);
  assert.equal((await upload(service, account.apiKey, rows(10))).statusCode, 202);
  const third = await upload(service, account.apiKey, rows(10));
  assert.deepStrictEqual([third.statusCode, third.json()], [403, {
    message: 'Account quota exceeded', detail: 'an account has at most 2 imports running at once (HERALD_ACCOUNT_MAX_IMPORTS): wait for one to end',
  }]);
  // Another account's quota is its own; nothing of the refused uploads was kept.
  assert.equal((await upload(service, other.apiKey, rows(10))).statusCode, 202);
  const kept = await service.deps.db.selectFrom('contact_imports').select('id').execute();
  assert.equal(kept.length, 3);
});

test('an import that would pass HERALD_ACCOUNT_MAX_CONTACTS ends failed at that batch, the batches before kept', async (t) => {
  const { service, account } = await world(t, { HERALD_ACCOUNT_MAX_CONTACTS: '1500' });
  const view = await imported(service, account.apiKey, `email\n${Array.from({ length: 2500 }, (_, i) => `c${i}@example.org`).join('\n')}\n`);
  assert.deepStrictEqual([view['status'], view['rows'], view['created'], view['failure']], [
    'failed', 1500, 1500,
    'Account quota exceeded: an account keeps at most 1500 contacts (HERALD_ACCOUNT_MAX_CONTACTS), so rows 1501 to 1750 and the rest were not imported',
  ]);
});

test('an import taken up HERALD_IMPORT_MAX_ATTEMPTS times without a batch ends failed, logged and counted as quarantined', async (t) => {
  const store = await sharedStore(t);
  const first = await startServiceOn(t, store, { clock: () => T0, imports: false });
  const account = await openAccount(first);
  const id: string = (await upload(first, account.apiKey, 'email\na@example.org\n')).json().import_id;
  // Three runners that each claimed it and died before their first batch.
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    const claimed = await claimImport(first.deps.db, first.store.capabilities, `runner-${attempt}`, T0 + attempt * 61_000, 60_000);
    assert.deepStrictEqual([claimed?.id, claimed?.attempts], [id, attempt]);
  }
  await first.close();

  const second = await startServiceOn(t, store, { clock: () => T0 + 4 * 61_000, importOptions: { maxAttempts: 3 } });
  await second.imports?.drain();
  const view = (await get(second, `/v1/contacts/imports/${id}`, account.apiKey)).json();
  assert.deepStrictEqual([view.status, view.rows, view.failure], [
    'failed', 0, 'The import was taken up 3 times without finishing a batch (its reading stopped the process or failed each time), so it is not taken up again; the rows before were imported',
  ]);
  assert.match(await second.deps.metrics.scrape(), /^herald_jobs_quarantined_total\{job="imports"\} 1$/m);
});

test('a runner stopped by SIGTERM gives its attempt back, and a committed batch counts the attempts again from one', async (t) => {
  const store = await sharedStore(t);
  const service = await startServiceOn(t, store, { clock: () => T0, imports: false });
  const account = await openAccount(service);
  const id: string = (await upload(service, account.apiKey, `email\n${Array.from({ length: 2500 }, (_, i) => `c${i}@example.org`).join('\n')}\n`)).json().import_id;
  const attempts = async () => Number((await service.deps.db.selectFrom('contact_imports').select('attempts').where('id', '=', id).executeTakeFirstOrThrow()).attempts);
  const claimed = await claimImport(service.deps.db, service.store.capabilities, 'dies', T0, 60_000);
  const again = await claimImport(service.deps.db, service.store.capabilities, 'stops', T0 + 61_000, 60_000);
  assert.deepStrictEqual([claimed?.attempts, again?.attempts], [1, 2]);
  assert.equal(await runImport(service.deps, again!, 'stops', 60_000, () => false), 'stopped');
  assert.equal(await attempts(), 1);
  await releaseImport(service.deps.db, id, 'stops');
  assert.equal(await attempts(), 0);
});
