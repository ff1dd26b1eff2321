import type { PostOutcome } from '../../channels/guarded-fetch.ts';

// What follows one webhook attempt, from two tables: the published retry schedule
// (docs/webhooks.md), and the verdict on each kind of answer. The schedule: the first
// attempt at once, then one after each failure at these delays, counted from the
// failure. No jitter: a receiver can tell exactly when the next attempt comes.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Delay before attempt n (index n - 1): attempt 1 at once, then after each failed attempt. */
export const WEBHOOK_SCHEDULE_MS: readonly number[] = [0, 5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];

/** Attempts the schedule makes; after this many failures a delivery is `failed` (kept, and can be retried by hand). */
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_SCHEDULE_MS.length;

/** From a delivery's creation to its last scheduled attempt when every attempt failed at once (27 h 35 min 5 s). */
export const WEBHOOK_SCHEDULE_SPAN_MS = WEBHOOK_SCHEDULE_MS.reduce((sum, delay) => sum + delay, 0);

/**
 * When the attempt after `attemptsMade` failed attempts is due, counted from the last
 * failure; undefined once the schedule is spent. A manual retry of a failed delivery
 * is one attempt more: if it fails too, the delivery is failed again at once.
 */
export function nextAttemptDelayMs(attemptsMade: number): number | undefined {
  return attemptsMade >= 1 && attemptsMade < WEBHOOK_MAX_ATTEMPTS ? WEBHOOK_SCHEDULE_MS[attemptsMade] : undefined;
}

/**
 * The verdict on each kind of answer:
 *  - done: 2xx, the receiver has the event;
 *  - disable: 410 Gone, the endpoint says it is gone for good: this delivery fails, the
 *    account's webhook is disabled (GET /v1/webhooks says so and why) until its settings
 *    are saved again, and nothing more is posted to it meanwhile;
 *  - retry-after: 429 and 503 may say when to come back (`Retry-After`, seconds or an
 *    HTTP date): the next attempt is no earlier than the schedule's and no earlier than
 *    asked, but never later than the schedule's last attempt (WEBHOOK_SCHEDULE_SPAN_MS
 *    after the delivery was made);
 *  - end: no post could be made and none ever will (a refused private or reserved
 *    address, a malformed URL, a name that does not exist: guardedPost's `permanent`);
 *  - schedule: anything else (other statuses, refused connections, time-outs).
 */
export type AnswerVerdict = 'done' | 'disable' | 'retry-after' | 'end' | 'schedule';

/** Statuses with a verdict of their own; other 2xx are `done`, the rest `schedule`. */
export const STATUS_VERDICTS: Readonly<Record<number, AnswerVerdict>> = { 410: 'disable', 429: 'retry-after', 503: 'retry-after' };

export function verdictOf(outcome: PostOutcome): AnswerVerdict {
  if (!outcome.answered) return outcome.permanent ? 'end' : 'schedule';
  if (outcome.status >= 200 && outcome.status <= 299) return 'done';
  return STATUS_VERDICTS[outcome.status] ?? 'schedule';
}

/** What becomes of the delivery after an attempt. */
export type NextStep =
  | { readonly status: 'succeeded' | 'failed' }
  | { readonly status: 'pending'; readonly nextAttemptAt: number };

/**
 * The delivery's next step after attempt number `attempt`, answered (or not) at `now`;
 * `createdAt` is when the delivery was made (the schedule's span counts from it).
 */
export function nextStepAfter(outcome: PostOutcome, attempt: number, now: number, createdAt: number): NextStep {
  const verdict = verdictOf(outcome);
  if (verdict === 'done') return { status: 'succeeded' };
  if (verdict === 'disable' || verdict === 'end') return { status: 'failed' };
  const delay = nextAttemptDelayMs(attempt);
  if (delay === undefined) return { status: 'failed' };
  const asked = verdict === 'retry-after' && outcome.answered ? retryAfterMs(outcome.retryAfter, now) : undefined;
  if (asked === undefined) return { status: 'pending', nextAttemptAt: now + delay };
  const lastAttemptAt = createdAt + WEBHOOK_SCHEDULE_SPAN_MS;
  return { status: 'pending', nextAttemptAt: Math.max(now + delay, Math.min(now + asked, lastAttemptAt)) };
}

// RFC 9110 §10.2.3: delay-seconds (digits) or an HTTP-date, which is always in GMT
// (IMF-fixdate; Date.parse reads the obsolete forms too). Date.parse alone would read "7" as a year.
const DELAY_SECONDS = /^\d{1,10}$/;
const HTTP_DATE = /^[A-Za-z]{3,9},? .+ GMT$/;

/** A `Retry-After` value as milliseconds from `now`; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (DELAY_SECONDS.test(text)) return Number(text) * SECOND;
  const at = HTTP_DATE.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
