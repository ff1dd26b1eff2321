// How `serve` starts (issue 21 item 3, issue 19 item 1): one serving process per SQLite
// file, refused before it binds anything; every port bound before any loop or job runs,
// so a process whose port is taken never delivers; the CLI and an `--role api` process
// keep working beside the server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { REPO, heraldEnv, runToEnd } from '../support/child-process.ts';
import { databaseUrl, herald } from '../support/cli-database.ts';
import { startHerald } from '../support/herald-process.ts';
import { freePort } from '../support/throwaway-servers.ts';
import { ADMIN_TOKEN } from '../support/service.ts';
import { openStore } from '../../src/store/dialect.ts';

/** `serve` run to its end (it is expected to refuse to start). */
function serveToEnd(env: Readonly<Record<string, string>>) {
  return runToEnd(process.execPath, ['src/main.ts', 'serve'], heraldEnv({ HERALD_HOST: '127.0.0.1', HERALD_ADMIN_TOKEN: ADMIN_TOKEN, ...env }), REPO);
}

async function listening(port: number): Promise<boolean> {
  const server = createServer().listen(port, '127.0.0.1');
  try {
    await once(server, 'listening');
    return false;
  } catch {
    return true;
  } finally {
    server.close();
  }
}

test('a second serve on the same SQLite file exits 78 with one line before it binds anything; the CLI and an api process work beside the first', { timeout: 120_000 }, async (t) => {
  const url = databaseUrl(t);
  const first = await startHerald('all', { HERALD_DATABASE_URL: url, HERALD_ADMIN_TOKEN: ADMIN_TOKEN });
  t.after(() => first.kill());
  const firstPort = new URL(first.url).port;
  const metricsPort = await freePort();

  // The first one's port: a second process that bound before looking for the lock would say the port is taken.
  const second = await serveToEnd({ HERALD_DATABASE_URL: url, HERALD_PORT: firstPort, HERALD_METRICS_PORT: String(metricsPort) });
  const lockFile = `${url.slice('sqlite:'.length)}.lock`;
  assert.deepStrictEqual([second.code, second.stderr, second.stdout], [
    78,
    `herald: configuration error: HERALD_DATABASE_URL: another herald process serves this SQLite database (it holds ${lockFile}); stop it first, or run several processes on PostgreSQL\n`,
    '',
  ]);
  assert.equal(await listening(metricsPort), false);

  // The CLI opens the same file while the server runs (README step 2).
  const cli = await herald(url, 'accounts', 'create', '--name', 'acme', '--messages', '5', '--json');
  assert.equal(cli.code, 0, cli.stderr);
  // An api process runs no loops: it takes no lock.
  const api = await startHerald('api', { HERALD_DATABASE_URL: url, HERALD_ADMIN_TOKEN: ADMIN_TOKEN });
  t.after(() => api.kill());
  assert.equal((await fetch(`${api.url}/healthz`)).status, 200);
  assert.equal(first.exit, undefined);
});

test('a serve whose API port is taken exits 78 naming HERALD_PORT, after closing its metrics port, and starts no loop or job: no heartbeat, no takeover of a previous run\'s process', { timeout: 60_000 }, async (t) => {
  const url = databaseUrl(t);
  // A store with a previous run's process row in it (as a SIGKILLed process leaves it).
  const migrated = await herald(url, 'accounts', 'list');
  assert.equal(migrated.code, 0, migrated.stderr);
  const store = openStore(url);
  t.after(() => store.db.destroy());
  await store.db.insertInto('processes').values({ id: 'previous-run', role: 'all', pid: 1, host: 'h', started_at: 0, last_seen_at: 0 }).execute();

  const taken = createServer().listen(0, '127.0.0.1');
  await once(taken, 'listening');
  t.after(() => taken.close());
  const port = (taken.address() as { port: number }).port;
  const metricsPort = await freePort();
  const run = await serveToEnd({ HERALD_DATABASE_URL: url, HERALD_PORT: String(port), HERALD_METRICS_PORT: String(metricsPort) });

  assert.deepStrictEqual([run.code, run.stderr], [78, `herald: configuration error: HERALD_PORT: port ${port} on 127.0.0.1 is already in use (by another herald or another program); stop it or choose another port\n`]);
  assert.equal(await listening(metricsPort), false);
  // No heartbeat row was written and no takeover ran: the loops never started.
  const rows = await store.db.selectFrom('processes').select(['id', 'leases_released_at']).execute();
  assert.deepStrictEqual(rows.map((row) => ({ ...row })), [{ id: 'previous-run', leases_released_at: null }]);
});
