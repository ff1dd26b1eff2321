// POST /v1/email: every row of the spec's 400 and 401 tables, each over real HTTP
// against a started service, asserting the exact status and the exact body.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { insertEmailTemplate } from '../../src/store/email-templates.ts';
import { insertSenderDomain } from '../../src/store/sender-domains.ts';
import { emailBody, keyWithScopes, openAccount, post, readAccount, startService } from '../support/service.ts';

type Row = { readonly name: string; readonly body: unknown; readonly expected: Record<string, unknown> };

const ERR_1 = { message: 'Invalid request, missing parameters. err 1' };
const ERR_2 = { message: 'Invalid request, missing parameters. err 2' };

// Each row: its own test, its own service, one request, exact 400 body.
const BAD_REQUESTS: readonly Row[] = [
  // err 1: the body is not a JSON object
  { name: 'a malformed JSON text gets 400 err 1', body: '{"to":', expected: ERR_1 },
  { name: 'a JSON array body gets 400 err 1', body: '[]', expected: ERR_1 },
  { name: 'a JSON array of a valid request gets 400 err 1', body: JSON.stringify([emailBody()]), expected: ERR_1 },
  { name: 'a JSON string body gets 400 err 1', body: '"hello"', expected: ERR_1 },
  { name: 'a JSON number body gets 400 err 1', body: '42', expected: ERR_1 },
  { name: 'a JSON null body gets 400 err 1', body: 'null', expected: ERR_1 },

  // err 2: options, cc or bcc of the wrong type
  { name: 'options that is a string gets 400 err 2', body: emailBody({ options: 'cc' }), expected: ERR_2 },
  { name: 'options that is an array gets 400 err 2', body: emailBody({ options: [] }), expected: ERR_2 },
  { name: 'options.cc that is an object, not an array, gets 400 err 2', body: emailBody({ options: { cc: { email: 'c@example.org' } } }), expected: ERR_2 },
  { name: 'options.bcc that is a string gets 400 err 2', body: emailBody({ options: { bcc: 'b@example.org' } }), expected: ERR_2 },

  // recipients
  { name: 'an email without to gets 400 Recipient missing or empty!', body: emailBody({ to: undefined }), expected: { message: 'Recipient missing or empty!' } },
  { name: 'an email whose to is a string gets 400 Recipient missing or empty!', body: emailBody({ to: 'ana@example.org' }), expected: { message: 'Recipient missing or empty!' } },
  { name: 'an email whose to is null gets 400 Recipient missing or empty!', body: emailBody({ to: null }), expected: { message: 'Recipient missing or empty!' } },
  { name: 'an email with an empty to list gets 400 No recipients defined', body: emailBody({ to: [] }), expected: { message: 'No recipients defined' } },
  { name: 'a to entry without an email field gets 400 Some addressees have not been defined', body: emailBody({ to: [{}] }), expected: { message: 'Some addressees have not been defined' } },
  { name: 'a to entry that is a bare string gets 400 Some addressees have not been defined', body: emailBody({ to: ['ana@example.org'] }), expected: { message: 'Some addressees have not been defined' } },
  { name: 'a to entry that is null gets 400 Some addressees have not been defined', body: emailBody({ to: [null] }), expected: { message: 'Some addressees have not been defined' } },
  {
    name: 'a cc entry without an email field gets 400 Some addressees have not been defined',
    body: emailBody({ options: { cc: [{ name: 'Carl' }] } }), expected: { message: 'Some addressees have not been defined' },
  },
  {
    name: 'a bcc entry without an email field gets 400 Some addressees have not been defined',
    body: emailBody({ options: { bcc: [{}] } }), expected: { message: 'Some addressees have not been defined' },
  },
  { name: 'an empty to address gets 400 a Recipient address is empty!', body: emailBody({ to: [{ email: '' }] }), expected: { message: 'a Recipient address is empty!' } },
  { name: 'a blank to address gets 400 a Recipient address is empty!', body: emailBody({ to: [{ email: '   ' }] }), expected: { message: 'a Recipient address is empty!' } },
  {
    name: 'malformed to addresses get 400 The recipient address has the wrong structure! listing every one',
    body: emailBody({ to: [{ email: 'not-an-address' }, { email: 'ana@example.org' }, { email: 'also@bad' }, { email: 'two@@example.org' }] }),
    expected: {
      message: 'The recipient address has the wrong structure!',
      error: [{ email: 'not-an-address' }, { email: 'also@bad' }, { email: 'two@@example.org' }],
    },
  },
  {
    name: 'a to address given as a number gets 400 The recipient address has the wrong structure! with its text',
    body: emailBody({ to: [{ email: 42 }] }),
    expected: { message: 'The recipient address has the wrong structure!', error: [{ email: '42' }] },
  },
  {
    name: 'a to address with a display name gets 400 The recipient address has the wrong structure!',
    body: emailBody({ to: [{ email: 'Ana <ana@example.org>' }] }),
    expected: { message: 'The recipient address has the wrong structure!', error: [{ email: 'Ana <ana@example.org>' }] },
  },
  {
    name: 'malformed cc addresses get 400 The cc address has the wrong structure! listing every one',
    body: emailBody({ options: { cc: [{ email: 'cc-bad' }, { email: 'carl@example.org' }, { email: 'cc@bad@example.org' }] } }),
    expected: { message: 'The cc address has the wrong structure!', error: [{ email: 'cc-bad' }, { email: 'cc@bad@example.org' }] },
  },
  {
    name: 'malformed bcc addresses get 400 The bcc address has the wrong structure! listing every one',
    body: emailBody({ options: { bcc: [{ email: 'bcc-bad' }, { email: 'b@example' }, { email: 'bea@example.org' }] } }),
    expected: { message: 'The bcc address has the wrong structure!', error: [{ email: 'bcc-bad' }, { email: 'b@example' }] },
  },

  // from
  { name: 'an email without a from address gets 400 Missing from address!', body: emailBody({ from: undefined }), expected: { message: 'Missing from address!' } },
  { name: 'a from without an email field gets 400 Missing from address!', body: emailBody({ from: { name: 'News' } }), expected: { message: 'Missing from address!' } },
  { name: 'a from given as a string gets 400 Missing from address!', body: emailBody({ from: 'news@example.com' }), expected: { message: 'Missing from address!' } },
  {
    name: 'a malformed from address gets 400 The from address has the wrong structure! listing it',
    body: emailBody({ from: { email: 'news-at-example.com', name: 'News' } }),
    expected: { message: 'The from address has the wrong structure!', error: [{ email: 'news-at-example.com' }] },
  },
  {
    name: 'a from without a name gets 400 The from address has the wrong structure! listing its address',
    body: emailBody({ from: { email: 'news@example.com' } }),
    expected: { message: 'The from address has the wrong structure!', error: [{ email: 'news@example.com' }] },
  },

  // replyTo
  { name: 'an email without replyTo gets 400 Missing replyTo!', body: emailBody({ replyTo: undefined }), expected: { message: 'Missing replyTo!' } },
  { name: 'a replyTo given as a string gets 400 Missing replyTo!', body: emailBody({ replyTo: 'help@example.com' }), expected: { message: 'Missing replyTo!' } },
  { name: 'a replyTo without a name gets 400 Missing replyTo name!', body: emailBody({ replyTo: { email: 'help@example.com' } }), expected: { message: 'Missing replyTo name!' } },
  { name: 'a replyTo without an email gets 400 Missing replyTo email!', body: emailBody({ replyTo: { name: 'Help' } }), expected: { message: 'Missing replyTo email!' } },
  {
    name: 'a malformed replyTo address gets 400 The replyTo address has the wrong structure!',
    body: emailBody({ replyTo: { email: 'help.example.com', name: 'Help' } }), expected: { message: 'The replyTo address has the wrong structure!' },
  },

  // subject and body
  { name: 'an email without a subject gets 400 Subject missing or empty!', body: emailBody({ subject: undefined }), expected: { message: 'Subject missing or empty!' } },
  { name: 'an empty subject gets 400 Subject missing or empty!', body: emailBody({ subject: '' }), expected: { message: 'Subject missing or empty!' } },
  { name: 'a blank subject gets 400 Subject missing or empty!', body: emailBody({ subject: ' \t ' }), expected: { message: 'Subject missing or empty!' } },
  { name: 'a subject that is a number gets 400 Subject missing or empty!', body: emailBody({ subject: 7 }), expected: { message: 'Subject missing or empty!' } },
  { name: 'an email without a body or template gets 400 Body missing or empty!', body: emailBody({ body: undefined }), expected: { message: 'Body missing or empty!' } },
  { name: 'an empty body gets 400 Body missing or empty!', body: emailBody({ body: '' }), expected: { message: 'Body missing or empty!' } },
  { name: 'a blank body gets 400 Body missing or empty!', body: emailBody({ body: '  \n ' }), expected: { message: 'Body missing or empty!' } },

  // templates
  {
    name: 'an unknown template_id gets 400 Could not find template',
    body: emailBody({ body: undefined, template_id: 'no-such-template' }), expected: { message: 'Could not find template' },
  },

  // attachments
  {
    name: 'attachments that is an object gets 400 Attachments parameter is set but is not an array',
    body: emailBody({ attachments: { filename: 'a.pdf', path: 'https://example.org/a.pdf' } }),
    expected: { message: 'Attachments parameter is set but is not an array' },
  },
  {
    name: 'attachments that is a string gets 400 Attachments parameter is set but is not an array',
    body: emailBody({ attachments: 'https://example.org/a.pdf' }), expected: { message: 'Attachments parameter is set but is not an array' },
  },
  {
    name: 'an attachment without a filename gets 400 for the missing filename parameter',
    body: emailBody({ attachments: [{ path: 'https://example.org/a.pdf' }] }),
    expected: { message: 'One or many attachments are missing the filename parameter which is mandatory for each attachment' },
  },
  {
    name: 'an attachment with an empty filename gets 400 for the missing filename parameter',
    body: emailBody({ attachments: [{ filename: '', path: 'https://example.org/a.pdf' }] }),
    expected: { message: 'One or many attachments are missing the filename parameter which is mandatory for each attachment' },
  },
  {
    name: 'an attachment without a path gets 400 for the missing path parameter',
    body: emailBody({ attachments: [{ filename: 'a.pdf' }] }),
    expected: { message: 'One or many attachments are missing the path parameter, which is mandatory for each attachment and must be a base64 URI encoded file' },
  },
  {
    name: 'an attachment with a data URI that is not base64 gets 400 for the missing path parameter',
    body: emailBody({ attachments: [{ filename: 'a.txt', path: 'data:text/plain;base64,@@@not base64@@@' }] }),
    expected: { message: 'One or many attachments are missing the path parameter, which is mandatory for each attachment and must be a base64 URI encoded file' },
  },
  {
    name: 'an attachment with an ftp:// path gets 400 for the missing path parameter',
    body: emailBody({ attachments: [{ filename: 'a.pdf', path: 'ftp://example.org/a.pdf' }] }),
    expected: { message: 'One or many attachments are missing the path parameter, which is mandatory for each attachment and must be a base64 URI encoded file' },
  },
  {
    name: 'a second attachment without a path gets 400 even when the first is fine',
    body: emailBody({ attachments: [{ filename: 'a.txt', path: 'data:text/plain;base64,aGVsbG8=' }, { filename: 'b.txt' }] }),
    expected: { message: 'One or many attachments are missing the path parameter, which is mandatory for each attachment and must be a base64 URI encoded file' },
  },
];

for (const row of BAD_REQUESTS) {
  test(row.name, async (t) => {
    const service = await startService(t);
    const account = await openAccount(service);
    const res = await post(service, '/v1/email', account.apiKey, row.body);
    assert.equal(res.statusCode, 400);
    assert.deepStrictEqual(res.json(), row.expected);
  });
}

test('template variables that are not an object get 400 Incorrect variable syntax', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const now = service.deps.clock();
  await insertEmailTemplate(service.deps.db, {
    id: 'tpl-welcome', accountId: account.id, name: 'welcome', subject: null, html: '<p>Hi {{name}}</p>', text: null, createdAt: now, updatedAt: now,
  });
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ body: undefined, template_id: 'tpl-welcome', variables: 'name=Ana' }));
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Incorrect variable syntax' });
});

test('another account\'s template_id gets 400 Could not find template', async (t) => {
  const service = await startService(t);
  const owner = await openAccount(service);
  const other = await openAccount(service);
  const now = service.deps.clock();
  await insertEmailTemplate(service.deps.db, {
    id: 'tpl-owned', accountId: owner.id, name: 'welcome', subject: null, html: '<p>Hi</p>', text: null, createdAt: now, updatedAt: now,
  });
  const res = await post(service, '/v1/email', other.apiKey, emailBody({ body: undefined, template_id: 'tpl-owned' }));
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Could not find template' });
});

test('a send that fails inside the service gets 400 Could not send message, an error has ocurred', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  // A real failure on the send path: the table the send is written to is gone.
  // Renamed rather than dropped: PostgreSQL refuses to drop a table that messages reference.
  await service.store.db.schema.alterTable('sends').renameTo('sends_gone').execute();
  const res = await post(service, '/v1/email', account.apiKey, emailBody());
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Could not send message, an error has ocurred' });
});

test('a send that fails inside the service takes no message from the account', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 5 });
  // Renamed rather than dropped: PostgreSQL refuses to drop a table that messages reference.
  await service.store.db.schema.alterTable('sends').renameTo('sends_gone').execute();
  const res = await post(service, '/v1/email', account.apiKey, emailBody());
  assert.equal(res.statusCode, 400);
  assert.equal((await readAccount(service, account.id)).messagesLeft, 5);
});

// ---- 401 ----

test('a key without the email scope gets 401 API key not authorized.', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const smsOnly = await keyWithScopes(service, account.id, ['sms', 'whatsapp']);
  const res = await post(service, '/v1/email', smsOnly, emailBody());
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'API key not authorized.' });
});

test('an inactive account gets 401 current service is not active', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { active: false });
  const res = await post(service, '/v1/email', account.apiKey, emailBody());
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'current service is not active' });
});

test('an account with the email service off gets 401 current service is not active', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { services: { email: false } });
  const res = await post(service, '/v1/email', account.apiKey, emailBody());
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'current service is not active' });
});

test('an account with no messages left gets 401 No messages left, please buy more messages', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 0 });
  const res = await post(service, '/v1/email', account.apiKey, emailBody());
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'No messages left, please buy more messages' });
});

test('three recipients with two messages left are refused whole with 401 No messages left, please buy more messages', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 2 });
  const res = await post(service, '/v1/email', account.apiKey, emailBody({
    to: [{ email: 'ana@example.org' }], options: { cc: [{ email: 'carl@example.org' }], bcc: [{ email: 'bea@example.org' }] },
  }));
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'No messages left, please buy more messages' });
  assert.equal((await readAccount(service, account.id)).messagesLeft, 2);
  const stored = await service.store.db.selectFrom('messages').select('id').where('account_id', '=', account.id).execute();
  assert.equal(stored.length, 0);
});

test('a from address on a domain the account has not verified gets 401 Domain not permitted. err 2', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ from: { email: 'x@other.com', name: 'Other' } }));
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'Domain not permitted. err 2' });
});

test('a from address on a registered but unverified domain gets 401 Domain not permitted. err 2', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  await insertSenderDomain(service.deps.db, { id: service.deps.newId(), accountId: account.id, domain: 'pending.com', verified: false, createdAt: service.deps.clock() });
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ from: { email: 'x@pending.com', name: 'Pending' } }));
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'Domain not permitted. err 2' });
});

test('a domain verified by another account gets 401 Domain not permitted. err 2', async (t) => {
  const service = await startService(t);
  await openAccount(service); // verifies example.com for itself
  const other = await openAccount(service);
  await service.store.db.deleteFrom('sender_domains').where('account_id', '=', other.id).execute();
  const res = await post(service, '/v1/email', other.apiKey, emailBody());
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'Domain not permitted. err 2' });
});

test('a valid email gets 200 with one msgid per recipient', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/email', account.apiKey, emailBody());
  assert.equal(res.statusCode, 200);
  const body = res.json();
  assert.match(body.to[0].msgid, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  assert.deepStrictEqual(body, { message: 'Email queued for delivery', to: [{ email: 'ana@example.org', msgid: body.to[0].msgid }] });
});

test('a from address whose verified domain is written in capitals is accepted', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ from: { email: 'News@EXAMPLE.COM', name: 'News' } }));
  assert.equal(res.statusCode, 200);
});
