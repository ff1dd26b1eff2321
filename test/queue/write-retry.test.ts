// An outcome the store did not take is written again (queue/write-retry.ts): until it is,
// or until its window (the lease's time left) or the caller's stop says enough.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeWithRetry } from '../../src/queue/write-retry.ts';

const lost = (): Error => Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });

test('a write that fails twice is tried a third time and its result returned; the first failure is reported once', async () => {
  let calls = 0;
  const reported: unknown[] = [];
  const result = await writeWithRetry(async () => {
    calls += 1;
    if (calls < 3) throw lost();
    return 'sent';
  }, { windowMs: 60_000, onFirstFailure: (error) => reported.push((error as Error).message) });
  assert.deepStrictEqual([result, calls, reported], ['sent', 3, ['Connection terminated unexpectedly']]);
});

test('a write that keeps failing is given up with its last error once the window is spent', async () => {
  let calls = 0;
  await assert.rejects(writeWithRetry(async () => {
    calls += 1;
    throw lost();
  }, { windowMs: 600, onFirstFailure: () => {} }), /Connection terminated unexpectedly/);
  // Pauses of 250 and 500 ms: the third would end past 600 ms.
  assert.equal(calls, 2);
});

test('a caller that gives up stops the retries at once', async () => {
  let calls = 0;
  await assert.rejects(writeWithRetry(async () => {
    calls += 1;
    throw lost();
  }, { windowMs: 60_000, onFirstFailure: () => {}, giveUp: () => true }), /Connection terminated unexpectedly/);
  assert.equal(calls, 1);
});
