// `herald accounts update ID --allow-list … --allow-list-applies-to …` (issue 19, item 6):
// the operator's way back into an account whose people saved themselves out, without
// the admin API. The CLI as an operator runs it, against a SQLite file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createAccountByCli, databaseUrl, herald, heraldJson } from '../support/cli-database.ts';

test('accounts update sets the allow-list in canonical form and whom it binds', async (t) => {
  const url = databaseUrl(t);
  const { account } = await createAccountByCli(url);
  const updated = await heraldJson(url, 'accounts', 'update', account.id, '--allow-list', '203.0.113.7, 10.1.2.3/8', '--allow-list-applies-to', 'keys');
  assert.deepStrictEqual([updated.ipAllowList, updated.allowListAppliesTo], [['203.0.113.7', '10.0.0.0/8'], 'keys']);
  const shown = await heraldJson(url, 'accounts', 'show', account.id);
  assert.deepStrictEqual([shown.ipAllowList, shown.allowListAppliesTo], [['203.0.113.7', '10.0.0.0/8'], 'keys']);
});

test('an empty --allow-list lets every address in, and the setting alone changes only itself', async (t) => {
  const url = databaseUrl(t);
  const { account } = await createAccountByCli(url);
  await heraldJson(url, 'accounts', 'update', account.id, '--allow-list', '198.51.100.0/24');
  const cleared = await heraldJson(url, 'accounts', 'update', account.id, '--allow-list', '');
  assert.deepStrictEqual([cleared.ipAllowList, cleared.allowListAppliesTo], [[], 'all']);
  const scoped = await heraldJson(url, 'accounts', 'update', account.id, '--allow-list-applies-to', 'keys');
  assert.deepStrictEqual([scoped.ipAllowList, scoped.allowListAppliesTo], [[], 'keys']);
});

test('the account\'s text says whom the list binds', async (t) => {
  const url = databaseUrl(t);
  const { account } = await createAccountByCli(url);
  const run = await herald(url, 'accounts', 'update', account.id, '--allow-list', '192.0.2.1', '--allow-list-applies-to', 'all');
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^ {2}ip allow-list {5}192\.0\.2\.1$/m);
  assert.match(run.stdout, /^ {2}allow-list binds {2}API keys and sessions \(all\)$/m);
});

test('an entry that is not an address exits 1 naming it, and changes nothing', async (t) => {
  const url = databaseUrl(t);
  const { account } = await createAccountByCli(url);
  const run = await herald(url, 'accounts', 'update', account.id, '--allow-list', '192.0.2.1,10.0.0.0/33');
  assert.deepStrictEqual(run, { code: 1, stdout: '', stderr: 'herald: --allow-list: "192.0.2.1,10.0.0.0/33": "10.0.0.0/33" is not an IP address or CIDR\n' });
  assert.deepStrictEqual((await heraldJson(url, 'accounts', 'show', account.id)).ipAllowList, []);
});

test('--allow-list-applies-to other than keys or all is a usage error', async (t) => {
  const url = databaseUrl(t);
  const { account } = await createAccountByCli(url);
  const run = await herald(url, 'accounts', 'update', account.id, '--allow-list-applies-to', 'sessions');
  assert.equal(run.code, 2);
  assert.equal(run.stderr.split('\n')[0], 'herald: --allow-list-applies-to: "sessions" is not one of: keys, all');
});
