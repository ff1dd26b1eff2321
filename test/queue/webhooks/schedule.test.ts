import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextAttemptDelayMs, WEBHOOK_MAX_ATTEMPTS, WEBHOOK_SCHEDULE_MS } from '../../../src/queue/webhooks/retry-policy.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

test('the published schedule: at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after each failure', () => {
  assert.deepStrictEqual(WEBHOOK_SCHEDULE_MS, [0, 5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR]);
  assert.equal(WEBHOOK_MAX_ATTEMPTS, 8);
});

test('each failed attempt is followed by the next slot, and the eighth by none', () => {
  assert.deepStrictEqual(
    [1, 2, 3, 4, 5, 6, 7, 8, 9].map(nextAttemptDelayMs),
    [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR, undefined, undefined],
  );
});
