import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { heraldCli, type Run } from './child-process.ts';

// The CLI tests' shared set-up: a fresh SQLite file per test, and the CLI run as an
// operator would, with only HERALD_DATABASE_URL (and what the test adds) set.

export function databaseUrl(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'herald-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return `sqlite:${join(dir, 'h.db')}`;
}

export function herald(url: string, ...args: string[]): Promise<Run> {
  return heraldCli({ HERALD_DATABASE_URL: url }, ...args);
}

export interface CreatedAccount {
  readonly account: { readonly id: string; readonly name: string };
  readonly apiKey: { readonly id: string; readonly apiKey: string };
}

/** `accounts create --json`, asserted to succeed. */
export async function createAccountByCli(url: string, name = 'acme', ...flags: string[]): Promise<CreatedAccount> {
  const run = await herald(url, 'accounts', 'create', '--name', name, ...flags, '--json');
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout) as CreatedAccount;
}

/** Runs a command with --json, asserts it succeeded and returns its document (read as JSON.parse gives it). */
export async function heraldJson(url: string, ...args: string[]): Promise<ReturnType<typeof JSON.parse>> {
  const run = await herald(url, ...args, '--json');
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stderr, '');
  return JSON.parse(run.stdout);
}
