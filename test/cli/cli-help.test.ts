// The CLI's help, its typo suggestions and its flag errors: what an operator sees
// when the command line is not yet right.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COMMANDS, GROUPS } from '../../src/cli/commands.ts';
import { databaseUrl, herald } from '../support/cli-database.ts';
import { heraldCliLines } from '../support/child-process.ts';

// The two "every" tests run the CLI's entry once per command line in one process (one
// Node start-up instead of 30); the tests below run it as its own process, as an operator does.
test('every command answers --help with its usage line and what it does, exit 0', async (t) => {
  const url = databaseUrl(t);
  const runs = await heraldCliLines({ HERALD_DATABASE_URL: url }, [...COMMANDS.keys()].map((name) => [...name.split(' '), '--help']));
  assert.equal(runs.length, COMMANDS.size);
  for (const [[name, command], run] of [...COMMANDS].map((entry, i) => [entry, runs[i]] as const)) {
    assert.ok(run);
    assert.equal(run.code, 0, `${name}: ${run.stderr}`);
    assert.equal(run.stdout.split('\n').slice(0, 3).join('\n'), `usage: npm run herald -- ${command.usage}\n\n${command.summary}`);
  }
});

test('every group answers --help with its commands, exit 0', async (t) => {
  const url = databaseUrl(t);
  const groups = [...GROUPS.keys()].filter((g) => [...COMMANDS.keys()].some((name) => name.startsWith(`${g} `)));
  const runs = await heraldCliLines({ HERALD_DATABASE_URL: url }, groups.map((group) => [group, '--help']));
  assert.equal(runs.length, groups.length);
  for (const [group, run] of groups.map((g, i) => [g, runs[i]] as const)) {
    assert.ok(run);
    assert.equal(run.code, 0, `${group}: ${run.stderr}`);
    const listed = [...run.stdout.matchAll(/^ {2}(\S+ \S+) {2,}/gm)].map((m) => m[1]);
    assert.deepStrictEqual(listed, [...COMMANDS.keys()].filter((name) => name.startsWith(`${group} `)));
  }
});

test('accounts --help lists the account commands', async (t) => {
  const run = await herald(databaseUrl(t), 'accounts', '--help');
  assert.equal(run.code, 0);
  assert.match(run.stdout, /^ {2}accounts list {4}The accounts, newest first; --name keeps those whose name contains TEXT \(or whose id is TEXT\)$/m);
});

test('--help lists every command', async (t) => {
  const run = await herald(databaseUrl(t), '--help');
  assert.equal(run.code, 0);
  assert.deepStrictEqual([...run.stdout.matchAll(/^ {2}(\S+(?: \S+)?) {2,}/gm)].map((m) => m[1]), [...COMMANDS.keys()]);
});

test('a group without a command exits 2 and lists the group\'s commands', async (t) => {
  const run = await herald(databaseUrl(t), 'domains');
  assert.equal(run.code, 2);
  assert.match(run.stderr, /^herald: domains needs a command$/m);
  assert.match(run.stderr, /^ {2}domains verify {2}/m);
});

test('a mistyped group suggests the closest command', async (t) => {
  const run = await herald(databaseUrl(t), 'acounts', 'create');
  assert.equal(run.code, 2);
  assert.equal(run.stdout, '');
  assert.match(run.stderr, /^herald: unknown command: acounts create \(did you mean "accounts create"\?\)$/m);
  assert.match(run.stderr, /^usage: npm run herald -- COMMAND/m);
});

test('a mistyped sub-command suggests the closest one of its group', async (t) => {
  const run = await herald(databaseUrl(t), 'keys', 'lst', 'x');
  assert.equal(run.code, 2);
  assert.match(run.stderr, /^herald: unknown command: keys lst \(did you mean "keys list"\?\)$/m);
});

test('a command far from any suggests nothing', async (t) => {
  const run = await herald(databaseUrl(t), 'frobnicate');
  assert.equal(run.code, 2);
  assert.match(run.stderr, /^herald: unknown command: frobnicate$/m);
});

test('a mistyped flag exits 2 and suggests the closest flag', async (t) => {
  const run = await herald(databaseUrl(t), 'accounts', 'create', '--name', 'acme', '--mesages', '5');
  assert.equal(run.code, 2);
  assert.match(run.stderr, /^herald: unknown flag --mesages for accounts create \(did you mean "--messages"\?\)$/m);
});

test('a count that is not a whole number exits 2 naming the flag and the value', async (t) => {
  const run = await herald(databaseUrl(t), 'accounts', 'create', '--name', 'acme', '--messages', 'ten');
  assert.equal(run.code, 2);
  assert.equal(run.stdout, '');
  assert.equal(run.stderr, 'herald: --messages: "ten" is not a whole number\n\nRun npm run herald -- accounts create --help for its flags.\n');
});

test('a yes/no flag that is neither exits 2 naming the flag and the value', async (t) => {
  const run = await herald(databaseUrl(t), 'accounts', 'update', 'x', '--active', 'maybe');
  assert.equal(run.code, 2);
  assert.match(run.stderr, /^herald: --active: "maybe" is not true or false$/m);
});

test('a value the API refuses names the flag instead of the API field', async (t) => {
  const run = await herald(databaseUrl(t), 'accounts', 'create', '--name', 'acme', '--rate-limit', '0');
  assert.equal(run.code, 1);
  assert.match(run.stderr, /^herald: --rate-limit: "0" must be /m);
});
