import { test } from 'node:test';
import assert from 'node:assert/strict';
import { post, startService } from '../support/service.ts';
import { databaseUrl, herald } from '../support/cli-database.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function createAcme(url: string): Promise<{ account: { id: string }; apiKey: { id: string; apiKey: string } }> {
  const run = await herald(url, 'accounts', 'create', '--name', 'acme', '--messages', '5', '--domain', 'example.com', '--json');
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout);
}

test('accounts create --json prints the account, its key and its verified domains with their records as one JSON document', async (t) => {
  const url = databaseUrl(t);
  const run = await herald(url, 'accounts', 'create', '--name', 'acme', '--messages', '5', '--domain', 'example.com', '--json');
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stderr, '');
  const out = JSON.parse(run.stdout);
  assert.match(out.account.id, UUID);
  assert.match(out.account.createdAt, ISO);
  assert.match(out.apiKey.id, UUID);
  assert.match(out.apiKey.apiKey, JWT);
  assert.match(out.domains[0].verifiedAt, ISO);
  assert.deepStrictEqual(out.domains[0].records.map((r: { type: string; name: string }) => [r.type, r.name]), [
    ['TXT', '_herald.example.com'], ['TXT', out.domains[0].records[1].name], ['TXT', 'example.com'], ['TXT', '_dmarc.example.com'], ['MX', 'localhost'],
  ]);
  assert.match(out.domains[0].records[1].name, /^herald\d{6}\._domainkey\.example\.com$/);
  assert.deepStrictEqual(out, {
    account: {
      id: out.account.id, name: 'acme', active: true, messagesLeft: 5, balance: 0, whatsappPrice: 0, rateLimitPerSecond: 2, ipAllowList: [], allowListAppliesTo: 'all',
      services: { email: true, sms: true, whatsapp: true }, webhookUrl: null, whatsappPhoneNumberId: null, whatsappAccessToken: null, whatsappBusinessAccountId: null, smsSenders: [],
      tracking: { opens: true, clicks: true },
      createdAt: out.account.createdAt, updatedAt: out.account.createdAt,
    },
    apiKey: { id: out.apiKey.id, apiKey: out.apiKey.apiKey, scopes: ['email', 'sms', 'whatsapp', 'webhooks', 'account'] },
    domains: [{ domain: 'example.com', verified: true, verifiedAt: out.domains[0].verifiedAt, records: out.domains[0].records, notes: [] }],
  });
});

test('the service on the same database accepts email with the key and domain the CLI created', async (t) => {
  const url = databaseUrl(t);
  const created = await createAcme(url);
  const service = await startService(t, { env: { HERALD_DATABASE_URL: url } });
  const res = await post(service, '/v1/email', created.apiKey.apiKey, {
    to: [{ email: 'ana@example.org' }], from: { email: 'news@example.com', name: 'News' }, replyTo: { email: 'help@example.com', name: 'Help' },
    subject: 'Hello', body: 'Hi there',
  });
  assert.equal(res.statusCode, 200);
});

test('accounts create without --json prints the account id and the key for a person', async (t) => {
  const url = databaseUrl(t);
  const run = await herald(url, 'accounts', 'create', '--name', 'acme');
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^Account [0-9a-f-]{36} \(acme\)$/m);
  assert.match(run.stdout, /^ {2}eyJ[A-Za-z0-9_.-]+$/m);
});

test('config prints the configuration table as Markdown', async (t) => {
  const run = await herald(databaseUrl(t), 'config');
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^\| Variable \| Default \| Description \|$/m);
  assert.match(run.stdout, /^\| `HERALD_PORT` \| `8080` \| TCP port of the HTTP API\. \|$/m);
});


test('a missing argument exits 2', async (t) => {
  const run = await herald(databaseUrl(t), 'accounts', 'show');
  assert.equal(run.code, 2);
  assert.match(run.stderr, /^herald: expected ACCOUNT_ID/m);
});

test('an invalid value exits 1 with the API\'s detail, naming the flag and the value', async (t) => {
  const run = await herald(databaseUrl(t), 'accounts', 'create', '--name', 'acme', '--balance', '1.23456');
  assert.equal(run.code, 1);
  assert.equal(run.stdout, '');
  assert.equal(run.stderr, 'herald: --balance: "1.23456" must be an amount of at least 0 with at most 4 decimals, e.g. 10.50\n');
});

test('an invalid --domain creates no account', async (t) => {
  const url = databaseUrl(t);
  const run = await herald(url, 'accounts', 'create', '--name', 'acme', '--domain', 'localhost');
  assert.equal(run.code, 1);
  assert.equal(run.stderr, 'herald: --domain: must be a host name with a dot, e.g. example.com\n');
  const service = await startService(t, { env: { HERALD_DATABASE_URL: url } });
  const { count } = await service.store.db.selectFrom('accounts').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  assert.equal(Number(count), 0);
});

test('accounts update tops up through the ledger', async (t) => {
  const url = databaseUrl(t);
  const { account } = await createAcme(url);
  const update = await herald(url, 'accounts', 'update', account.id, '--add-messages', '10', '--add-balance', '2.50', '--json');
  assert.equal(update.code, 0, update.stderr);
  assert.deepStrictEqual([JSON.parse(update.stdout).messagesLeft, JSON.parse(update.stdout).balance], [15, 2.5]);
  const ledger = await herald(url, 'accounts', 'ledger', account.id, '--json');
  assert.deepStrictEqual(
    JSON.parse(ledger.stdout).entries.map((e: { reason: string; messagesDelta: number; balanceDelta: number }) => [e.reason, e.messagesDelta, e.balanceDelta]),
    [['account.open', 5, 0], ['admin.top-up', 10, 2.5]],
  );
});

test('a top-up below zero exits 1 with the API\'s detail', async (t) => {
  const url = databaseUrl(t);
  const { account } = await createAcme(url);
  const run = await herald(url, 'accounts', 'update', account.id, '--add-messages=-6');
  assert.equal(run.code, 1);
  assert.equal(run.stderr, 'herald: --add-messages: "-6": the account would go below zero\n');
});

test('accounts show lists the keys by id, never the keys themselves', async (t) => {
  const url = databaseUrl(t);
  const created = await createAcme(url);
  const run = await herald(url, 'accounts', 'show', created.account.id);
  assert.equal(run.code, 0, run.stderr);
  assert.ok(run.stdout.includes(created.apiKey.id));
  assert.ok(!run.stdout.includes(created.apiKey.apiKey));
  assert.match(run.stdout, /^ {2}example\.com \(verified\)$/m);
});

test('keys create with scopes prints a key limited to them, and keys revoke revokes it', async (t) => {
  const url = databaseUrl(t);
  const { account } = await createAcme(url);
  const created = await herald(url, 'keys', 'create', account.id, '--scopes', 'email,sms', '--json');
  assert.equal(created.code, 0, created.stderr);
  const key = JSON.parse(created.stdout);
  assert.deepStrictEqual([key.scopes, key.expiresAt], [['email', 'sms'], null]);
  const revoked = await herald(url, 'keys', 'revoke', account.id, key.id, '--json');
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.deepStrictEqual(JSON.parse(revoked.stdout), { id: key.id, revoked: true });
});

test('revoking an unknown key exits 1 with Not found', async (t) => {
  const url = databaseUrl(t);
  const { account } = await createAcme(url);
  const run = await herald(url, 'keys', 'revoke', account.id, 'nope');
  assert.equal(run.code, 1);
  assert.equal(run.stderr, 'herald: Not found\n');
});

test('adding a domain the account has exits 1 with Already exists', async (t) => {
  const url = databaseUrl(t);
  const { account } = await createAcme(url);
  const run = await herald(url, 'domains', 'add', account.id, 'Example.com', '--verified');
  assert.equal(run.code, 1);
  assert.equal(run.stderr, 'herald: Already exists\n');
});

test('whatsapp-templates add records a template and prints its id', async (t) => {
  const url = databaseUrl(t);
  const { account } = await createAcme(url);
  const run = await herald(url, 'whatsapp-templates', 'add', account.id, '--name', 'otp', '--body', 'Hi {{1}}', '--json');
  assert.equal(run.code, 0, run.stderr);
  const template = JSON.parse(run.stdout);
  assert.match(template.templateId, UUID);
  assert.deepStrictEqual(template, { templateId: template.templateId, name: 'otp', language: 'en_US', body: 'Hi {{1}}', status: 'APPROVED', paramCount: 1,
    category: 'UTILITY', header: null, footer: null, submission: 'local', submissionError: null,
  });
});

test('a template with a broken placeholder exits 1 with Incorrect variable syntax', async (t) => {
  const url = databaseUrl(t);
  const { account } = await createAcme(url);
  const run = await herald(url, 'whatsapp-templates', 'add', account.id, '--name', 'otp', '--body', 'Hi {{name}}');
  assert.equal(run.code, 1);
  assert.equal(run.stderr, 'herald: Incorrect variable syntax\n');
});

test('users invite prints the one-time invitation link, and the link lets the owner in', async (t) => {
  const url = databaseUrl(t);
  const created = await createAcme(url);
  const run = await herald(url, 'users', 'invite', '--account', created.account.id, '--email', 'Ana@Example.org', '--role', 'owner');
  assert.equal(run.code, 0, run.stderr);
  const lines = run.stdout.split('\n');
  assert.match(lines[0] ?? '', /^Invited ana@example\.org as owner \(user [0-9a-f-]{36}\)\.$/);
  assert.match(lines[1] ?? '', /^Send them this link; it works once, until \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z:$/);
  assert.match(lines[2] ?? '', /^http:\/\/localhost:8080\/app\/invitation#[A-Za-z0-9_-]{43}$/);
  const service = await startService(t, { env: { HERALD_DATABASE_URL: url } });
  const res = await post(service, '/v1/auth/invitation/accept', undefined, { token: (lines[2] ?? '').split('#')[1], password: 'correct horse battery staple' });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().user.role, 'owner');
});

test('users invite with an unknown role exits 2 naming the flag, the value and the roles', async (t) => {
  const url = databaseUrl(t);
  const created = await createAcme(url);
  const run = await herald(url, 'users', 'invite', '--account', created.account.id, '--email', 'ana@example.org', '--role', 'admin');
  assert.equal(run.code, 2);
  assert.match(run.stderr, /^herald: --role: "admin" is not one of: viewer, developer, owner$/m);
});
