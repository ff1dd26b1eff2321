// The engine's table of jobs (queue/jobs.ts): what each role runs, and the settings
// the table shows are the ones the queues are built with.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JOBS, jobsOf } from '../../src/queue/jobs.ts';
import { partsOf } from '../../src/roles.ts';

test('a process of role all runs every job of the table, and a worker every one but the API\'s request log and live feed', () => {
  const every = ['outbox', 'simulator-reports', 'inbound-media', 'webhooks', 'imports', 'campaigns', 'retention', 'api-requests-purge', 'sms-reassembly', 'whatsapp-templates', 'fallback', 'delivery-hold', 'api-requests-flush', 'live-events', 'heartbeat', 'wal-checkpoint'];
  assert.deepStrictEqual([...jobsOf(partsOf('all'))], every);
  assert.deepStrictEqual([...jobsOf(partsOf('worker'))], every.filter((job) => job !== 'api-requests-flush' && job !== 'live-events'));
});

test('an api process runs only its request log\'s writes, the live feed of open pages, its heartbeat and the store\'s checkpoints', () => {
  assert.deepStrictEqual([...jobsOf(partsOf('api'))], ['api-requests-flush', 'live-events', 'heartbeat', 'wal-checkpoint']);
});

test('a process that posts webhooks but delivers nothing still watches the delivery hold, and sweeps nothing', () => {
  assert.deepStrictEqual([...jobsOf({ delivery: false, webhooks: true, imports: false, api: false })], ['webhooks', 'delivery-hold', 'heartbeat', 'wal-checkpoint']);
});

test('the table shows each job\'s settings', () => {
  assert.deepStrictEqual(JOBS.outbox.settings, { batchSize: 64, concurrency: 128, leaseMs: 300_000, pollMs: 1000 });
  assert.deepStrictEqual(JOBS['simulator-reports'].settings, { batchSize: 64, concurrency: 16, pollMs: 1000, leaseMs: 300_000 });
  assert.deepStrictEqual(JOBS['inbound-media'].settings, { batchSize: 8, concurrency: 4, pollMs: 1000, leaseMs: 180_000 });
  assert.deepStrictEqual(JOBS.webhooks.settings, { batchSize: 128, concurrency: 128, maxSocketsPerOrigin: 32, leaseMs: 300_000, pollMs: 1000, timeoutMs: 10_000 });
  assert.deepStrictEqual(JOBS.imports.settings, { batchSize: 1, concurrency: 1, pollMs: 5000, leaseMs: 60_000 });
  assert.deepStrictEqual(JOBS.campaigns.settings, { batchSize: 1, concurrency: 1, pollMs: 1000, leaseMs: 60_000 });
  assert.deepStrictEqual(
    [JOBS.retention.everyMs, JOBS['api-requests-purge'].everyMs, JOBS['sms-reassembly'].everyMs, JOBS['whatsapp-templates'].everyMs, JOBS.fallback.everyMs, JOBS['delivery-hold'].everyMs, JOBS['api-requests-flush'].everyMs, JOBS['live-events'].everyMs, JOBS.heartbeat.everyMs, JOBS['wal-checkpoint'].everyMs],
    [600_000, 600_000, 30_000, 2000, 1000, 1000, 1000, 500, 2000, 100],
  );
});
