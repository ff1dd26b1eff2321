// The lease loop through an outage of its store (queue/lease-loop.ts): claims that fail
// are tried again with backoff, said once, and the loop resumes when they succeed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { LeaseLoop, type LeaseQueue } from '../../src/queue/lease-loop.ts';
import { captureLog } from '../support/captured-log.ts';

test('a store that fails three claims in a row: one error line, the claims backed off, the job delivered once it answers, one line when claims succeed again', async (t) => {
  const log = captureLog();
  const claimedAt: number[] = [];
  const delivered: string[] = [];
  let due = ['job-1'];
  const queue: LeaseQueue<'lane', string> = {
    name: 'test',
    lanes: ['lane'],
    releaseAllLeases: async () => 0,
    async claim(_lane, limit) {
      claimedAt.push(performance.now());
      if (claimedAt.length <= 3) throw Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
      const jobs = due.slice(0, limit);
      due = due.slice(jobs.length);
      return jobs;
    },
    async deliver(job) {
      delivered.push(job);
    },
    unwritten: () => 0,
  };
  const loop = new LeaseLoop(queue, { batchSize: 10, concurrency: 4, pollMs: 60_000, recoverLeasesAtStart: false }, { logger: log.logger, clock: Date.now });
  t.after(() => loop.stop());
  loop.start();
  for (let i = 0; i < 200 && delivered.length === 0; i++) await sleep(25);

  assert.deepStrictEqual(delivered, ['job-1']);
  // Pauses of 250, 500 and 1000 ms between the failed claims and the one that worked (timers fire no earlier).
  const gaps = claimedAt.slice(1, 4).map((at, i) => at - claimedAt[i]!);
  assert.ok(gaps[0]! >= 245 && gaps[1]! >= 495 && gaps[2]! >= 995, `gaps ${gaps.join(', ')}`);
  assert.deepStrictEqual(log.lines.filter((line) => line.queue === 'test').map((line) => [line.level, line.msg, line.failedSteps]), [
    [50, 'claim failed; retrying with backoff', undefined],
    [30, 'claims succeed again', 3],
  ]);
});
