// Process roles: an `api` process serves the interface and delivers nothing; a
// `worker` process delivers and answers only health checks; together, on one store,
// they do what one `all` process does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { createRoleService, prepareRoleService, type RoleService } from '../src/service.ts';
import { startSmsc } from './peers/smsc.ts';
import { ADMIN_TOKEN, emailBody, openAccount } from './support/service.ts';

const run = promisify(execFile);
const root = new URL('../', import.meta.url).pathname;

async function roleService(t: import('node:test').TestContext, role: 'api' | 'worker', env: Record<string, string>): Promise<RoleService> {
  const config = loadConfig({ HERALD_ADMIN_TOKEN: ADMIN_TOKEN, HERALD_FETCH_ALLOW_PRIVATE: 'true', ...env });
  const service = await createRoleService(config, { role, logger: false, worker: false });
  t.after(() => service.close());
  return service;
}

function sharedFile(t: import('node:test').TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'herald-roles-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return `sqlite:${join(dir, 'herald.db')}`;
}

test('an api process serves the interface and has no worker, dispatcher or SMPP session', async (t) => {
  const smsc = await startSmsc();
  t.after(() => smsc.close());
  const api = await roleService(t, 'api', { HERALD_DATABASE_URL: 'sqlite::memory:', HERALD_SMS_TRANSPORT: smsc.url() });
  const account = await openAccount(api);

  const res = await api.http.inject({
    method: 'POST', url: '/v1/email', headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' }, payload: emailBody(),
  });
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual([api.role, api.worker, api.webhooks], ['api', undefined, undefined]);
  await sleep(200);
  assert.deepStrictEqual(smsc.binds, []);
});

test('a worker process answers health checks only', async (t) => {
  const worker = await roleService(t, 'worker', { HERALD_DATABASE_URL: 'sqlite::memory:' });
  const health = await worker.http.inject({ method: 'GET', url: '/healthz' });
  const ready = await worker.http.inject({ method: 'GET', url: '/readyz' });
  const send = await worker.http.inject({ method: 'POST', url: '/v1/email', headers: { 'content-type': 'application/json' }, payload: '{}' });
  const docs = await worker.http.inject({ method: 'GET', url: '/openapi.json' });
  assert.deepStrictEqual(
    [health.statusCode, ready.statusCode, send.statusCode, send.json(), docs.statusCode],
    [200, 200, 404, { message: 'Not found' }, 404],
  );
});

test('an api and a worker process on one store deliver what the api accepted', async (t) => {
  const databaseUrl = sharedFile(t);
  const api = await roleService(t, 'api', { HERALD_DATABASE_URL: databaseUrl });
  const worker = await roleService(t, 'worker', { HERALD_DATABASE_URL: databaseUrl });
  const account = await openAccount(api);
  const res = await api.http.inject({
    method: 'POST', url: '/v1/email', headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' }, payload: emailBody(),
  });
  const msgid: string = res.json().to[0].msgid;

  await worker.worker?.drain();

  const view = await api.http.inject({ method: 'GET', url: `/v1/messages/${msgid}`, headers: { authorization: `Bearer ${account.apiKey}` } });
  assert.equal(view.json().status, 'sent');
});

test('a prepared process answers /healthz before any loop or job runs; start() writes its heartbeat row and starts the loops', async (t) => {
  const config = loadConfig({ HERALD_ADMIN_TOKEN: ADMIN_TOKEN, HERALD_DATABASE_URL: 'sqlite::memory:' });
  const service = await prepareRoleService(config, { role: 'all', logger: false });
  t.after(() => service.close());
  const processes = () => service.store.db.selectFrom('processes').select('role').execute();

  const health = await service.http.inject({ method: 'GET', url: '/healthz' });
  assert.deepStrictEqual([health.statusCode, service.worker?.lastTurnAt(), service.webhooks?.lastTurnAt(), service.campaigns?.lastTurnAt(), (await processes()).length], [200, undefined, undefined, undefined, 0]);
  assert.equal((await service.http.inject({ method: 'GET', url: '/readyz' })).statusCode, 503);

  await service.start();
  assert.deepStrictEqual((await processes()).map((p) => p.role), ['all']);
  for (let i = 0; i < 100 && (await service.http.inject({ method: 'GET', url: '/readyz' })).statusCode !== 200; i++) await sleep(20);
  assert.equal((await service.http.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
});

test('serve refuses an unknown role with its usage and exit code 2', async () => {
  const failed = await run(process.execPath, ['src/main.ts', 'serve', '--role', 'both'], { cwd: root }).then(
    () => assert.fail('serve --role both started'),
    (error: { code: number; stderr: string }) => error,
  );
  assert.deepStrictEqual([failed.code, failed.stderr], [2, 'usage: node src/main.ts serve [--role all|api|worker] [--paused]\n']);
});
