// The published retry schedule of webhook deliveries (docs/webhooks.md): the first
// attempt at once, then one after each failure at these delays, counted from the
// failure. No jitter: a receiver can tell exactly when the next attempt comes.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Delay before attempt n (index n - 1): attempt 1 at once, then after each failed attempt. */
export const WEBHOOK_SCHEDULE_MS: readonly number[] = [0, 5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];

/** Attempts the schedule makes; after this many failures a delivery is `failed` (kept, and can be retried by hand). */
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_SCHEDULE_MS.length;

/**
 * When the attempt after `attemptsMade` failed attempts is due, counted from the last
 * failure; undefined once the schedule is spent. A manual retry of a failed delivery
 * is one attempt more: if it fails too, the delivery is failed again at once.
 */
export function nextAttemptDelayMs(attemptsMade: number): number | undefined {
  return attemptsMade >= 1 && attemptsMade < WEBHOOK_MAX_ATTEMPTS ? WEBHOOK_SCHEDULE_MS[attemptsMade] : undefined;
}
