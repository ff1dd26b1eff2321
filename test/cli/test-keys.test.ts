// `herald keys create --mode test` (docs/sandbox.md): the operator's way to a test key.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { heraldCli, type Run } from '../support/child-process.ts';

function herald(t: TestContext): (...args: string[]) => Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'herald-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return (...args) => heraldCli({ HERALD_DATABASE_URL: `sqlite:${join(dir, 'h.db')}` }, ...args);
}

async function accountId(run: (...args: string[]) => Promise<Run>): Promise<string> {
  const created = await run('accounts', 'create', '--name', 'acme', '--json');
  assert.equal(created.code, 0, created.stderr);
  return JSON.parse(created.stdout).account.id as string;
}

test('keys create --mode test prints a test_ key in test mode', async (t) => {
  const run = herald(t);
  const id = await accountId(run);
  const created = await run('keys', 'create', id, '--mode', 'test', '--json');
  assert.equal(created.code, 0, created.stderr);
  const key = JSON.parse(created.stdout);
  assert.match(key.apiKey, /^test_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  assert.equal(key.mode, 'test');
});

test('keys create --mode with anything but live or test exits 1 naming the flag and the value', async (t) => {
  const run = herald(t);
  const id = await accountId(run);
  const created = await run('keys', 'create', id, '--mode', 'sandbox');
  assert.deepStrictEqual([created.code, created.stderr], [1, 'herald: --mode: "sandbox" must be "live" or "test"\n']);
});
