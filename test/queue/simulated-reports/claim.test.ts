// The simulator reports' lease statements (queue/simulated-reports/claim.ts), on the
// store the run chooses (SQLite, or PostgreSQL under test/run-postgres.ts).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { claimDueReports, releaseAllReportLeases, removeLeasedReport } from '../../../src/queue/simulated-reports/claim.ts';
import { insertSimulatedReports } from '../../../src/store/simulated-reports.ts';
import { uuidv7 } from '../../../src/app/uuidv7-source.ts';
import type { Service } from '../../../src/service.ts';
import { startService } from '../../support/service.ts';

const T0 = 1_700_000_000_000;
const STEP_MS = 1000;
const LEASE_MS = 60_000;

async function setUp(t: TestContext): Promise<Service> {
  const service = await startService(t, { worker: false });
  return service;
}

/** Leases due reports in a transaction, as the queue does; returns their message and step. */
async function claim(service: Service, owner: string, now: number, limit = 10): Promise<string[]> {
  const reports = await service.deps.db.transaction().execute((tx) => claimDueReports(tx, service.store.capabilities, { owner, now, leaseMs: LEASE_MS, limit }));
  return reports.map((report) => `${report.messageId} ${report.step}`);
}

async function reportsOf(service: Service, messageId: string, steps: ('delivered' | 'opened' | 'clicked')[]): Promise<void> {
  await insertSimulatedReports(service.deps.db, { id: messageId, accountId: 'account' }, steps, { now: T0, stepMs: STEP_MS, newId: uuidv7 });
}

test('a claim leases the due reports, only the first left of each message (head of line), up to the limit', async (t) => {
  const service = await setUp(t);
  await reportsOf(service, 'm1', ['delivered', 'opened', 'clicked']);
  await reportsOf(service, 'm2', ['delivered']);
  await reportsOf(service, 'm3', ['delivered']);

  assert.deepStrictEqual(await claim(service, 'a', T0 + STEP_MS - 1), []);
  assert.deepStrictEqual(await claim(service, 'a', T0 + 3 * STEP_MS, 2), ['m1 delivered', 'm2 delivered']);
  assert.deepStrictEqual(await claim(service, 'b', T0 + 3 * STEP_MS), ['m3 delivered']);
});

test('a report removed under its lease lets the message\'s next one fall due; a lost lease removes nothing', async (t) => {
  const service = await setUp(t);
  await reportsOf(service, 'm1', ['delivered', 'opened']);
  const [delivered] = await service.deps.db.transaction().execute((tx) => claimDueReports(tx, service.store.capabilities, { owner: 'a', now: T0 + 2 * STEP_MS, leaseMs: LEASE_MS, limit: 10 }));
  assert.ok(delivered !== undefined);

  assert.equal(await removeLeasedReport(service.deps.db, delivered.id, 'b'), false);
  assert.deepStrictEqual(await claim(service, 'b', T0 + 2 * STEP_MS), []);
  assert.equal(await removeLeasedReport(service.deps.db, delivered.id, 'a'), true);
  assert.deepStrictEqual(await claim(service, 'b', T0 + 2 * STEP_MS), ['m1 opened']);
});

test('a report whose lease ran out is claimed again by another owner', async (t) => {
  const service = await setUp(t);
  await reportsOf(service, 'm1', ['delivered']);
  await claim(service, 'dead', T0 + STEP_MS);

  assert.deepStrictEqual(await claim(service, 'next', T0 + STEP_MS + LEASE_MS - 1), []);
  assert.deepStrictEqual(await claim(service, 'next', T0 + STEP_MS + LEASE_MS), ['m1 delivered']);
});

test('releaseAllReportLeases lets go of every lease and says how many', async (t) => {
  const service = await setUp(t);
  await reportsOf(service, 'm1', ['delivered']);
  await reportsOf(service, 'm2', ['delivered']);
  await claim(service, 'a', T0 + STEP_MS);

  assert.equal(await releaseAllReportLeases(service.deps.db), 2);
  assert.deepStrictEqual(await claim(service, 'b', T0 + STEP_MS), ['m1 delivered', 'm2 delivered']);
});
