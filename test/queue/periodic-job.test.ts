// The engine's periodic jobs (queue/periodic-job.ts): turns on a timer, a turn never
// overtaken by the next, an exception logged and counted, stop() waiting for the turn.
import { mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { schedulePeriodic, type ScheduledJob } from '../../src/queue/periodic-job.ts';
import type { ErrorSource } from '../../src/metrics/registry.ts';
import { captureLog } from '../support/captured-log.ts';

/** A job whose turns last until finish() is called. */
function slowJob(everyMs: number): { job: ScheduledJob; turns: () => number; finish: () => void } {
  let turns = 0;
  let finish = (): void => {};
  const job = schedulePeriodic({
    name: 'slow', everyMs,
    run: () => {
      turns += 1;
      return new Promise<void>((resolve) => (finish = resolve));
    },
  }, { logger: captureLog().logger });
  return { job, turns: () => turns, finish: () => finish() };
}

/** Lets the promise callbacks of a turn run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

test('a job runs once per interval, first after one interval', async (t) => {
  mock.timers.enable({ apis: ['setInterval'] });
  t.after(() => mock.timers.reset());
  let turns = 0;
  const job = schedulePeriodic({ name: 'count', everyMs: 1000, run: () => void (turns += 1) }, { logger: captureLog().logger });
  t.after(() => job.stop());

  mock.timers.tick(999);
  assert.equal(turns, 0);
  mock.timers.tick(1);
  assert.equal(turns, 1);
  await settle();
  mock.timers.tick(1000);
  await settle();
  mock.timers.tick(1000);
  assert.equal(turns, 3);
});

test('runAtStart runs a first turn at once', async (t) => {
  let turns = 0;
  const job = schedulePeriodic({ name: 'count', everyMs: 60_000, run: () => void (turns += 1) }, { logger: captureLog().logger }, { runAtStart: true });
  t.after(() => job.stop());
  assert.equal(turns, 1);
});

test('a tick that comes while a turn still runs is skipped, not queued', async (t) => {
  mock.timers.enable({ apis: ['setInterval'] });
  t.after(() => mock.timers.reset());
  const slow = slowJob(100);
  t.after(() => slow.job.stop());

  mock.timers.tick(100);
  mock.timers.tick(100);
  mock.timers.tick(100);
  assert.equal(slow.turns(), 1);
  slow.finish();
  await settle();
  mock.timers.tick(100);
  assert.equal(slow.turns(), 2);
  slow.finish();
});

test('runNow while a turn runs returns that turn instead of starting another', async (t) => {
  const slow = slowJob(60_000);
  t.after(() => slow.job.stop());

  const first = slow.job.runNow();
  const second = slow.job.runNow();
  assert.equal(first, second);
  assert.equal(slow.turns(), 1);
  slow.finish();
  await first;
});

test('a turn that throws is logged at error with the job name and counted, and the next turn runs', async (t) => {
  const log = captureLog();
  const counted: ErrorSource[] = [];
  let turns = 0;
  const job = schedulePeriodic({
    name: 'flaky', everyMs: 60_000,
    run: () => {
      turns += 1;
      if (turns === 1) throw new Error('boom');
    },
  }, { logger: log.logger, metrics: { unexpectedError: (source) => void counted.push(source) }, errorSource: 'imports' });
  t.after(() => job.stop());

  await job.runNow();
  await job.runNow();
  assert.equal(turns, 2);
  assert.deepStrictEqual(log.lines.map((line) => [line.level, line.msg, line.job, line.err?.message]), [
    [50, 'periodic job failed; its next turn runs as usual', 'flaky', 'boom'],
  ]);
  assert.deepStrictEqual(counted, ['imports']);
});

test('stop() aborts the running turn\'s signal and resolves only when the turn has ended', async () => {
  const events: string[] = [];
  let finish = (): void => {};
  const job = schedulePeriodic({
    name: 'long', everyMs: 60_000,
    run: (signal) => new Promise<void>((resolve) => {
      signal.addEventListener('abort', () => events.push('aborted'));
      finish = () => {
        events.push('turn ended');
        resolve();
      };
    }),
  }, { logger: captureLog().logger }, { runAtStart: true });

  const stopped = job.stop().then(() => events.push('stopped'));
  await settle();
  assert.deepStrictEqual(events, ['aborted']);
  finish();
  await stopped;
  assert.deepStrictEqual(events, ['aborted', 'turn ended', 'stopped']);
});

test('after stop() no tick and no runNow starts a turn', async (t) => {
  mock.timers.enable({ apis: ['setInterval'] });
  t.after(() => mock.timers.reset());
  let turns = 0;
  const job = schedulePeriodic({ name: 'count', everyMs: 100, run: () => void (turns += 1) }, { logger: captureLog().logger });
  await job.stop();
  mock.timers.tick(1000);
  await job.runNow();
  assert.equal(turns, 0);
});
