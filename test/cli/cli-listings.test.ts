// The CLI's listings and the commands around them: accounts (found by name, names
// unique without regard to case), keys, templates and users, in text and with --json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { post, startService } from '../support/service.ts';
import { createAccountByCli, databaseUrl, herald, heraldJson } from '../support/cli-database.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

test('accounts list --name finds the accounts whose name holds the text, without regard to case, newest first', async (t) => {
  const url = databaseUrl(t);
  const acme = await createAccountByCli(url, 'Acme Corp', '--messages', '5');
  await createAccountByCli(url, 'Globex');
  const acmeLabs = await createAccountByCli(url, 'acme labs');
  const out = await heraldJson(url, 'accounts', 'list', '--name', 'ACME');
  assert.match(out.accounts[0].createdAt, ISO);
  assert.deepStrictEqual(out, {
    accounts: [
      { id: acmeLabs.account.id, name: 'acme labs', active: true, messagesLeft: 0, balance: 0, users: 0, createdAt: out.accounts[0].createdAt },
      { id: acme.account.id, name: 'Acme Corp', active: true, messagesLeft: 5, balance: 0, users: 0, createdAt: out.accounts[1].createdAt },
    ],
    nextCursor: null,
  });
});

test('accounts list prints a table for a person', async (t) => {
  const url = databaseUrl(t);
  const acme = await createAccountByCli(url, 'acme', '--messages', '5');
  const run = await herald(url, 'accounts', 'list');
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, `id                                    name  active  messages  balance  users\n${acme.account.id}  acme  yes     5         0        0\n`);
});

test('accounts list --limit says there is more', async (t) => {
  const url = databaseUrl(t);
  await createAccountByCli(url, 'one');
  await createAccountByCli(url, 'two');
  const run = await herald(url, 'accounts', 'list', '--limit', '1');
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^\(more: raise --limit or narrow --name\)$/m);
});

test('a second account with a name differing only in case is refused, naming the holder', async (t) => {
  const url = databaseUrl(t);
  const acme = await createAccountByCli(url, 'Acme');
  const run = await herald(url, 'accounts', 'create', '--name', 'ACME');
  assert.equal(run.code, 1);
  assert.equal(run.stderr, `herald: --name: "ACME" is taken by account ${acme.account.id} (names are compared without regard to case)\n`);
  assert.equal((await heraldJson(url, 'accounts', 'list')).accounts.length, 1);
});

test('renaming an account to another\'s name is refused; to its own in another case is not', async (t) => {
  const url = databaseUrl(t);
  const acme = await createAccountByCli(url, 'acme');
  const globex = await createAccountByCli(url, 'globex');
  const taken = await herald(url, 'accounts', 'update', globex.account.id, '--name', 'Acme');
  assert.equal(taken.code, 1);
  assert.equal(taken.stderr, `herald: --name: "Acme" is taken by account ${acme.account.id} (names are compared without regard to case)\n`);
  assert.equal((await heraldJson(url, 'accounts', 'update', acme.account.id, '--name', 'ACME')).name, 'ACME');
});

test('keys list shows every key by id with its state, never the key itself', async (t) => {
  const url = databaseUrl(t);
  const acme = await createAccountByCli(url);
  const second = await heraldJson(url, 'keys', 'create', acme.account.id, '--scopes', 'sms');
  await heraldJson(url, 'keys', 'revoke', acme.account.id, second.id);
  const out = await heraldJson(url, 'keys', 'list', acme.account.id);
  assert.deepStrictEqual(out.keys.map((k: { id: string; scopes: string[]; revokedAt: string | null }) => [k.id, k.scopes, k.revokedAt === null]), [
    [acme.apiKey.id, ['email', 'sms', 'whatsapp', 'webhooks', 'account'], true],
    [second.id, ['sms'], false],
  ]);
  const text = await herald(url, 'keys', 'list', acme.account.id);
  assert.match(text.stdout, new RegExp(`^${second.id}  -  +sms  +revoked ${ISO.source.slice(1, -1)}  never$`, 'm'));
  assert.ok(!text.stdout.includes(acme.apiKey.apiKey));
});

test('keys list of an unknown account exits 1 with Not found', async (t) => {
  const run = await herald(databaseUrl(t), 'keys', 'list', 'nope');
  assert.equal(run.code, 1);
  assert.equal(run.stderr, 'herald: Not found\n');
});

test('templates list shows the email and the WhatsApp templates; --channel keeps one kind', async (t) => {
  const url = databaseUrl(t);
  const acme = await createAccountByCli(url);
  const service = await startService(t, { env: { HERALD_DATABASE_URL: url } });
  const saved = await post(service, '/v1/email/templates', acme.apiKey.apiKey, { name: 'welcome', subject: 'Hi {{name}}', html: '<p>Hi {{name}}</p>' });
  assert.equal(saved.statusCode, 201, saved.body);
  const wa = await heraldJson(url, 'whatsapp-templates', 'add', acme.account.id, '--name', 'otp', '--body', 'Code {{1}}');
  const both = await heraldJson(url, 'templates', 'list', acme.account.id);
  assert.deepStrictEqual([both.email.map((e: { template_id: string; name: string }) => [e.template_id, e.name]), both.whatsapp], [
    [[saved.json().template_id, 'welcome']], [wa],
  ]);
  assert.deepStrictEqual(Object.keys(await heraldJson(url, 'templates', 'list', acme.account.id, '--channel', 'whatsapp')), ['whatsapp']);
  const text = await herald(url, 'templates', 'list', acme.account.id);
  assert.equal(text.stdout, [
    'Email templates:', `  ${saved.json().template_id}  welcome  Hi {{name}}`,
    'WhatsApp templates:', `  ${wa.templateId}  otp  en_US  APPROVED  1 parameter`, '',
  ].join('\n'));
});

test('templates list --channel with another kind exits 2 naming the choices', async (t) => {
  const run = await herald(databaseUrl(t), 'templates', 'list', 'x', '--channel', 'sms');
  assert.equal(run.code, 2);
  assert.match(run.stderr, /^herald: --channel: "sms" is not one of: email, whatsapp$/m);
});

test('users list shows the invited user; users role changes it; users remove removes it', async (t) => {
  const url = databaseUrl(t);
  const acme = await createAccountByCli(url);
  const invited = await heraldJson(url, 'users', 'invite', '--account', acme.account.id, '--email', 'ana@example.org', '--role', 'developer');
  const listed = await heraldJson(url, 'users', 'list', '--account', acme.account.id);
  assert.match(listed.users[0].created_at, ISO);
  assert.deepStrictEqual(listed, { users: [{
    user_id: invited.user_id, email: 'ana@example.org', role: 'developer', status: 'invited', totp_enabled: false,
    created_at: listed.users[0].created_at, last_sign_in_at: null, active_sessions: 0,
  }] });
  const changed = await herald(url, 'users', 'role', '--account', acme.account.id, '--user', invited.user_id, '--role', 'viewer');
  assert.equal(changed.stdout, `User ${invited.user_id} (ana@example.org) is now viewer.\n`);
  assert.deepStrictEqual(await heraldJson(url, 'users', 'remove', '--account', acme.account.id, '--user', invited.user_id), { user_id: invited.user_id, removed: true });
  assert.deepStrictEqual(await heraldJson(url, 'users', 'list', '--account', acme.account.id), { users: [] });
});

test('users remove of an unknown user exits 1 with Not found', async (t) => {
  const url = databaseUrl(t);
  const acme = await createAccountByCli(url);
  const run = await herald(url, 'users', 'remove', '--account', acme.account.id, '--user', 'nope');
  assert.equal(run.code, 1);
  assert.equal(run.stderr, 'herald: Not found\n');
});
