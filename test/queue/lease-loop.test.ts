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

/** A queue of named jobs in memory: each claim leases up to `limit` of what is due in its lane. */
function memoryQueue(due: Record<'a' | 'b', string[]>, options: { deliver?: (job: string) => Promise<void>; released?: number } = {}) {
  const calls: string[] = [];
  const queue: LeaseQueue<'a' | 'b', string> = {
    name: 'memory',
    lanes: ['a', 'b'],
    releaseAllLeases: async () => {
      calls.push('releaseAllLeases');
      return options.released ?? 0;
    },
    async claim(lane, limit) {
      const jobs = due[lane].splice(0, limit);
      calls.push(`claim ${lane} ${limit} → ${jobs.join(',')}`);
      return jobs;
    },
    deliver: (job) => options.deliver?.(job) ?? Promise.resolve(),
    unwritten: () => 0,
    starting: () => void calls.push('starting'),
    stopping: () => void calls.push('stopping'),
    close: () => void calls.push('close'),
  };
  return { queue, calls };
}

const OPTIONS = { batchSize: 2, concurrency: 4, pollMs: 60_000, recoverLeasesAtStart: false };

test('drain() claims each lane until nothing is due, in batches of at most batchSize, and returns the jobs started', async () => {
  const delivered: string[] = [];
  const { queue, calls } = memoryQueue({ a: ['a1', 'a2', 'a3'], b: ['b1'] }, { deliver: async (job) => void delivered.push(job) });
  const loop = new LeaseLoop(queue, OPTIONS, { logger: captureLog().logger, clock: Date.now });

  assert.equal(await loop.drain(), 4);
  assert.deepStrictEqual(delivered, ['a1', 'a2', 'b1', 'a3']);
  assert.deepStrictEqual(calls, ['claim a 2 → a1,a2', 'claim b 2 → b1', 'claim a 2 → a3', 'claim b 2 → ', 'claim a 2 → ', 'claim b 2 → ']);
});

test('while held, the loop claims nothing; once no longer held, it claims again', async () => {
  let held = true;
  const { queue } = memoryQueue({ a: ['a1'], b: [] });
  const loop = new LeaseLoop(queue, OPTIONS, { logger: captureLog().logger, clock: Date.now, held: () => held });

  assert.equal(await loop.drain(), 0);
  held = false;
  assert.equal(await loop.drain(), 1);
});

test('drain() claims each lane once, then waits for the jobs in flight before it claims again', async () => {
  const finish: (() => void)[] = [];
  const { queue, calls } = memoryQueue({ a: ['a1', 'a2', 'a3'], b: ['b1'] }, { deliver: () => new Promise<void>((resolve) => void finish.push(resolve)) });
  const loop = new LeaseLoop(queue, { ...OPTIONS, concurrency: 2 }, { logger: captureLog().logger, clock: Date.now });
  const drained = loop.drain();
  for (let i = 0; i < 20 && finish.length < 3; i++) await sleep(5);

  assert.deepStrictEqual(calls, ['claim a 2 → a1,a2', 'claim b 2 → b1']);
  for (const done of finish.splice(0)) done();
  for (let i = 0; i < 20 && finish.length < 1; i++) await sleep(5);
  for (const done of finish.splice(0)) done();
  assert.equal(await drained, 4);
});

test('start() releases old leases first when recoverLeasesAtStart, logs how many, and drain() waits for that release', async (t) => {
  const log = captureLog();
  const { queue, calls } = memoryQueue({ a: ['a1'], b: [] }, { released: 3 });
  const loop = new LeaseLoop(queue, { ...OPTIONS, recoverLeasesAtStart: true }, { logger: log.logger, clock: Date.now });
  t.after(() => loop.stop());
  loop.start();
  await loop.drain();

  assert.deepStrictEqual(calls.slice(0, 2), ['starting', 'releaseAllLeases']);
  assert.deepStrictEqual(log.lines.map((line) => [line.level, line.msg, line.queue, line.released]), [
    [40, 'released the leases of a previous run that did not stop cleanly; those jobs are tried again', 'memory', 3],
  ]);
});

test('wake(lane) after start() claims that lane without waiting for the poll', async (t) => {
  const { queue, calls } = memoryQueue({ a: [], b: [] });
  const loop = new LeaseLoop(queue, OPTIONS, { logger: captureLog().logger, clock: Date.now });
  t.after(() => loop.stop());
  loop.start();
  for (let i = 0; i < 20 && calls.length < 3; i++) await sleep(5);
  calls.length = 0;

  loop.wake('b');
  for (let i = 0; i < 20 && calls.length < 1; i++) await sleep(5);
  assert.deepStrictEqual(calls, ['claim b 2 → ']);
});

test('stop() tells the queue first and waits for the jobs in flight; close() then lets the queue close', async () => {
  let finish = (): void => {};
  const { queue, calls } = memoryQueue({ a: ['a1'], b: [] }, { deliver: () => new Promise<void>((resolve) => (finish = () => {
    calls.push('a1 delivered');
    resolve();
  })) });
  const loop = new LeaseLoop(queue, OPTIONS, { logger: captureLog().logger, clock: Date.now });
  loop.start();
  for (let i = 0; i < 40 && !calls.includes('claim a 2 → a1'); i++) await sleep(5);

  const closed = loop.close().then(() => calls.push('closed'));
  await sleep(10);
  finish();
  await closed;
  assert.deepStrictEqual(calls.filter((call) => !call.startsWith('claim')), ['starting', 'stopping', 'a1 delivered', 'close', 'closed']);
});

test('lastTurnAt() is undefined before the first turn and the clock\'s time of the last turn after; pollMs is the option', async (t) => {
  const { queue } = memoryQueue({ a: [], b: [] });
  const loop = new LeaseLoop(queue, { ...OPTIONS, pollMs: 1234 }, { logger: captureLog().logger, clock: () => 42_000 });
  t.after(() => loop.stop());

  assert.equal(loop.lastTurnAt(), undefined);
  loop.start();
  for (let i = 0; i < 20 && loop.lastTurnAt() === undefined; i++) await sleep(5);
  assert.deepStrictEqual([loop.lastTurnAt(), loop.pollMs], [42_000, 1234]);
});

test('drain() while the running loop holds every slot waits for that job, then claims and delivers what is still due', async (t) => {
  const delivered: string[] = [];
  let finishFirst = (): void => {};
  const { queue, calls } = memoryQueue({ a: ['a1', 'a2'], b: [] }, {
    deliver: (job) => (job === 'a1' ? new Promise<void>((resolve) => (finishFirst = resolve)) : Promise.resolve()).then(() => void delivered.push(job)),
  });
  const loop = new LeaseLoop(queue, { ...OPTIONS, batchSize: 1, concurrency: 1 }, { logger: captureLog().logger, clock: Date.now });
  t.after(() => loop.stop());
  loop.start();
  for (let i = 0; i < 40 && !calls.includes('claim a 1 → a1'); i++) await sleep(5);

  const drained = loop.drain();
  await sleep(10);
  finishFirst();
  await drained;
  assert.deepStrictEqual(delivered, ['a1', 'a2']);
});
