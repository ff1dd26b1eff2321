// /readyz of a process that delivers: ready while its loops (outbox, webhooks,
// campaigns) turn, unready (503, with the reason) once one has not run for ten poll intervals.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../src/config.ts';
import { createRoleService, type RoleService } from '../../src/service.ts';
import { ADMIN_TOKEN } from '../support/service.ts';

const START = Date.UTC(2026, 0, 5, 9, 0, 0);

async function workerProcess(t: TestContext, clock: () => number): Promise<RoleService> {
  const config = loadConfig({ HERALD_DATABASE_URL: 'sqlite::memory:', HERALD_ADMIN_TOKEN: ADMIN_TOKEN });
  const service = await createRoleService(config, { role: 'worker', logger: false, clock, workerOptions: { pollMs: 1000 } });
  t.after(() => service.close());
  // Each loop's first turn follows the release of old leases.
  const loops = [service.worker, service.webhooks, service.campaigns, service.simulatedReports];
  while (loops.some((loop) => loop?.lastTurnAt() === undefined)) await sleep(5);
  return service;
}

test('a worker whose delivery loop turns is ready', async (t) => {
  const service = await workerProcess(t, () => START);
  const res = await service.http.inject({ method: 'GET', url: '/readyz' });
  assert.deepStrictEqual([res.statusCode, res.json()], [200, { status: 'ready' }]);
});

test('a worker whose delivery loop stopped is ready for ten poll intervals, then answers 503 with the reason', async (t) => {
  let now = START;
  const service = await workerProcess(t, () => now);
  await service.worker?.stop();
  now += 9_000;
  const within = await service.http.inject({ method: 'GET', url: '/readyz' });
  assert.deepStrictEqual([within.statusCode, within.json()], [200, { status: 'ready' }]);
  now += 6_000;
  const stalled = await service.http.inject({ method: 'GET', url: '/readyz' });
  assert.deepStrictEqual([stalled.statusCode, stalled.json()], [503, {
    message: 'Service temporarily unavailable, please try again',
    detail: 'the outbox delivery loop has not run for 15 s (limit 10 s)',
  }]);
});

for (const { loop, what } of [{ loop: 'webhooks', what: 'webhook delivery loop' }, { loop: 'campaigns', what: 'campaign loop' }, { loop: 'simulatedReports', what: 'simulator report loop' }] as const) {
  test(`a worker whose ${what} stopped answers 503 naming it after ten poll intervals`, async (t) => {
    let now = START;
    const service = await workerProcess(t, () => now);
    await service[loop]?.stop();
    now += 15_000;
    // The other loops keep turning on the moved clock; only the stopped one is named.
    const others = [service.worker, service.webhooks, service.campaigns, service.simulatedReports].filter((other) => other !== service[loop]);
    const deadline = Date.now() + 5000;
    while (others.some((other) => other?.lastTurnAt() !== now) && Date.now() < deadline) await sleep(20);
    const stalled = await service.http.inject({ method: 'GET', url: '/readyz' });
    assert.deepStrictEqual([stalled.statusCode, stalled.json()], [503, {
      message: 'Service temporarily unavailable, please try again',
      detail: `the ${what} has not run for 15 s (limit 10 s)`,
    }]);
  });
}

test('a worker whose loop runs again after a stall is ready again', async (t) => {
  let now = START;
  const service = await workerProcess(t, () => now);
  now += 60_000;
  // The clock jumped past the limit; each loop's next turn (its 1 s poll at the latest) catches up.
  const deadline = Date.now() + 5000;
  const loops = [service.worker, service.webhooks, service.campaigns, service.simulatedReports];
  while (loops.some((loop) => loop?.lastTurnAt() !== now) && Date.now() < deadline) await sleep(20);
  const res = await service.http.inject({ method: 'GET', url: '/readyz' });
  assert.deepStrictEqual([res.statusCode, res.json()], [200, { status: 'ready' }]);
});
