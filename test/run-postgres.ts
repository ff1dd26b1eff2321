// Runs the behaviour suites again on PostgreSQL: every test file that starts a service
// through test/support/service.ts (and does not pick its own store), with
// HERALD_TEST_STORE=postgres so each service gets an empty schema of TEST_POSTGRES_URL of its own.
// Without TEST_POSTGRES_URL it says so and succeeds, so `npm test` passes anywhere.
//   node test/run-postgres.ts [file ...]   (default: every such file)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { glob } from 'node:fs/promises';
import { dropTestSchemas } from './support/postgres.ts';

const url = process.env.TEST_POSTGRES_URL;
if (url === undefined || url === '') {
  process.stdout.write('PostgreSQL suites skipped: TEST_POSTGRES_URL is not set\n');
  process.exit(0);
}

/**
 * Files that start services but whose subject is decided before or beside the store, so a
 * second run on PostgreSQL proves nothing the first did not: each with why. The store paths
 * they pass through (an API key read, a send) run on PostgreSQL in the other files.
 */
const STORE_BLIND: ReadonlyMap<string, string> = new Map([
  ['test/http/security-headers.test.ts', 'the headers of every answer, and the CSP in Chromium'],
  ['test/http/json-body.test.ts', 'the JSON parser, which answers before any route'],
  ['test/http/json-parse-pool.test.ts', 'the JSON parser\'s worker threads'],
  ['test/http/timeouts.test.ts', 'the HTTP server\'s socket time-outs'],
  ['test/submission/certificate-reload.test.ts', 'the TLS certificate files read again'],
  ['test/submission/shared-port.test.ts', 'two services binding one port'],
  ['test/submission/clients.test.ts', 'three SMTP clients\' dialects (what SMTP stores is compared with the API on PostgreSQL in same-as-api.test.ts)'],
  ['test/e2e/typescript-client.test.ts', 'the documentation\'s TypeScript example compiled against a generated client'],
]);

/**
 * A file runs on both stores when it starts services and leaves the store to startService
 * (directly, or through test/support/campaigns.ts campaignWorld), unless it is store-blind.
 * Files that start herald processes on PostgreSQL themselves (startCluster: test/e2e/multi-process*)
 * already ran in the first pass of `npm test`, and are never run twice.
 */
function runsOnEitherStore(file: string): boolean {
  const text = readFileSync(file, 'utf8');
  const startsServices = text.includes('startService(') || text.includes('campaignWorld(');
  return startsServices && !text.includes('HERALD_DATABASE_URL') && !text.includes('startCluster(') && !STORE_BLIND.has(file);
}

for (const file of STORE_BLIND.keys()) if (!existsSync(file)) throw new Error(`test/run-postgres.ts: STORE_BLIND names ${file}, which is gone`);
const files = process.argv.slice(2);
if (files.length === 0) for await (const file of glob('test/**/*.test.ts')) if (runsOnEitherStore(file)) files.push(file);
files.sort();

// Test schemas carry the run's id, so this run can drop what it leaves behind without
// touching another run on the same server; an hour old means a run that was killed.
const run = randomBytes(3).toString('hex');
const HOUR = 3_600_000;
const stale = await dropTestSchemas({ now: Date.now(), olderThanMs: HOUR });
process.stdout.write(`PostgreSQL suites: ${files.length} files on ${new URL(url).host}${stale > 0 ? ` (dropped ${stale} stale test schemas)` : ''}\n`);

const child = spawn(process.execPath, ['--test', '--test-concurrency=2', ...files], {
  stdio: 'inherit',
  env: { ...process.env, HERALD_TEST_STORE: 'postgres', HERALD_TEST_RUN: run },
});
const code = await new Promise<number>((resolve) => child.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal === null ? 1 : 128))));
await dropTestSchemas({ run, now: Date.now(), olderThanMs: HOUR });
process.exit(code);
