import type { FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract, type RateLimiterRes } from 'rate-limiter-flexible';
import { sendRejection } from '../wire-errors.ts';

// Guesses slowed with progressive delays (docs/users-and-sessions.md, "Sign-in, and its
// slowing"), counted with rate-limiter-flexible. An attempt is TAKEN before anything is
// checked and given back only when the check succeeds, so concurrent guesses cannot all
// slip past a count written after a 0.7 s password hash. Each counter ("ladder") lets
// `free` attempts through at once within its window; after that every attempt must win
// the counter's gate, which the winner holds for a delay that doubles with each (2 s,
// 4 s, 8 s… for sign-in, up to maxDelaySeconds): one try per delay, and a 429 with Retry-After for the
// rest, without checking anything. Nothing is ever locked for longer than the cap.
//
// With HERALD_REDIS_URL the counts are kept in Redis, shared by every API process; while
// Redis cannot be reached (and without it) each process counts on its own
// (rate-limiter-flexible's insurance limiter), so sign-in never stops for want of Redis.

/** One counter's rule. */
export interface Ladder {
  /** Attempts let through at once within the window. */
  readonly free: number;
  /** The wait after the first attempt past the free ones; each next one doubles it. */
  readonly firstDelaySeconds: number;
  /** The longest wait between two attempts past the free ones. */
  readonly maxDelaySeconds: number;
  /** Attempts are forgotten this long after the first one. */
  readonly windowSeconds: number;
}

/** The counters herald keeps, each with its rule. */
export interface AttemptLimits {
  /** Sign-in failures of one address from one client IP: what slows a guesser without touching the user elsewhere. */
  readonly signInPair: Ladder;
  /** Sign-in failures from one client IP, whatever the address (one IP trying many addresses). */
  readonly signInIp: Ladder;
  /**
   * Sign-in failures of one address from IPs that never signed in to it: many IPs
   * guessing one password. An IP that signed in to the address before is not counted
   * here, so a stranger's failures elsewhere never keep the user out of their own IP.
   */
  readonly signInAddress: Ladder;
  /** Wrong two-factor codes of one user (sign-in's second step, DELETE /v1/me/totp, confirming a new secret). */
  readonly totp: Ladder;
  /** Wrong current passwords of one user (POST /v1/me/password). */
  readonly currentPassword: Ladder;
  /** Wrong admin tokens from one client IP. */
  readonly adminIp: Ladder;
  /** Wrong admin tokens from IPs that never presented the right one. */
  readonly adminAny: Ladder;
  /** Password-reset requests for one address, and from one IP (each one counts: it may send an email). */
  readonly resetAddress: Ladder;
  readonly resetIp: Ladder;
  /** Invitations made by one account, and of one address by one account (each one may send an email). */
  readonly inviteAccount: Ladder;
  readonly inviteAddress: Ladder;
}

const MINUTE = 60;
const HOUR = 3600;
const DAY = 86_400;

export const DEFAULT_ATTEMPT_LIMITS: AttemptLimits = {
  signInPair: { free: 5, firstDelaySeconds: 2, maxDelaySeconds: 15 * MINUTE, windowSeconds: DAY },
  signInIp: { free: 50, firstDelaySeconds: 2, maxDelaySeconds: 15 * MINUTE, windowSeconds: HOUR },
  signInAddress: { free: 100, firstDelaySeconds: 2, maxDelaySeconds: 15 * MINUTE, windowSeconds: DAY },
  totp: { free: 5, firstDelaySeconds: 2, maxDelaySeconds: 15 * MINUTE, windowSeconds: DAY },
  currentPassword: { free: 5, firstDelaySeconds: 2, maxDelaySeconds: 15 * MINUTE, windowSeconds: DAY },
  adminIp: { free: 5, firstDelaySeconds: 2, maxDelaySeconds: 15 * MINUTE, windowSeconds: DAY },
  adminAny: { free: 100, firstDelaySeconds: 2, maxDelaySeconds: 15 * MINUTE, windowSeconds: DAY },
  resetAddress: { free: 3, firstDelaySeconds: MINUTE, maxDelaySeconds: HOUR, windowSeconds: DAY },
  resetIp: { free: 20, firstDelaySeconds: 2, maxDelaySeconds: HOUR, windowSeconds: HOUR },
  inviteAccount: { free: 50, firstDelaySeconds: MINUTE, maxDelaySeconds: HOUR, windowSeconds: DAY },
  inviteAddress: { free: 3, firstDelaySeconds: HOUR, maxDelaySeconds: DAY, windowSeconds: DAY },
};

export type LadderName = keyof AttemptLimits;

/** One counter an attempt is taken from. */
export interface Count {
  readonly ladder: LadderName;
  readonly key: string;
  /** On success the counter starts again from nothing (the person proved themselves), instead of getting this attempt back. */
  readonly clearOnSuccess?: boolean;
}

/** An attempt taken from its counters: give it back when the check succeeds; a failure keeps it. */
export interface TakenAttempt {
  readonly allowed: true;
  succeeded(): Promise<void>;
}

/** Refused before any check: try again in this many milliseconds (Retry-After). */
export interface RefusedAttempt {
  readonly allowed: false;
  readonly retryAfterMs: number;
}

export interface AttemptThrottle {
  /** Takes one attempt from every counter (all or none), or says how long to wait. */
  take(counts: readonly Count[]): Promise<TakenAttempt | RefusedAttempt>;
  /** Whether this IP proved the credential of `subject` lately (signed in to the address, or gave the admin token). */
  knows(subject: string, ip: string): Promise<boolean>;
  /** Remembers for 20 days that this IP proved the credential of `subject`. */
  remember(subject: string, ip: string): Promise<void>;
}

/** Where the counts are shared: the process's Redis client and HERALD_REDIS_PREFIX. */
export interface SharedCounts {
  readonly client: Redis;
  readonly keyPrefix: string;
}

// Under 2^31 ms: the memory store keeps each key with a setTimeout, which cannot wait longer.
const KNOWN_SECONDS = 20 * DAY;
/** Failures are counted without a ceiling of their own: the gate decides. */
const UNBOUNDED = 1_000_000_000;

/** first·2^(k-1) seconds for the k-th attempt past the free ones, capped; never 0 (0 means "never expires" to the library). */
export const delaySecondsOf = (ladder: Ladder, pastFree: number): number =>
  Math.max(1, Math.min(ladder.maxDelaySeconds, ladder.firstDelaySeconds * 2 ** Math.min(pastFree - 1, 30)));

interface Counters {
  readonly ladder: Ladder;
  /** Attempts taken within the window. */
  readonly attempts: RateLimiterAbstract;
  /** Held by the one attempt let through past the free ones, for its delay. */
  readonly gate: RateLimiterAbstract;
}

const msOf = (res: RateLimiterRes | null): number => (res === null ? 0 : Math.max(1, res.msBeforeNext));

/** `onRefused` hears every refusal, with its ladder (the metric herald_attempts_refused_total). */
export function attemptThrottle(
  limits: AttemptLimits = DEFAULT_ATTEMPT_LIMITS, shared?: SharedCounts, onRefused: (ladder: LadderName) => void = () => {},
): AttemptThrottle {
  const limiter = (name: string, points: number, duration: number): RateLimiterAbstract => {
    const local = new RateLimiterMemory({ keyPrefix: `attempt-${name}`, points, duration });
    if (shared === undefined) return local;
    return new RateLimiterRedis({
      storeClient: shared.client, keyPrefix: `${shared.keyPrefix}attempt-${name}`, points, duration,
      rejectIfRedisNotReady: true, insuranceLimiter: local,
    });
  };
  const counters = Object.fromEntries(
    (Object.keys(limits) as LadderName[]).map((name) => {
      const ladder = limits[name];
      return [name, {
        ladder,
        attempts: limiter(`${name}-n`, UNBOUNDED, ladder.windowSeconds),
        gate: limiter(`${name}-gate`, 1, ladder.maxDelaySeconds),
      }];
    }),
  ) as Record<LadderName, Counters>;
  const known = limiter('known', UNBOUNDED, KNOWN_SECONDS);
  const refuse = (ladder: LadderName, retryAfterMs: number): RefusedAttempt => {
    onRefused(ladder);
    return { allowed: false, retryAfterMs };
  };
  const giveBack = async (taken: readonly Count[]): Promise<void> => {
    for (const count of taken) await counters[count.ladder].attempts.reward(count.key, 1);
  };

  return {
    async take(counts) {
      // A gate already held refuses at once, without counting anything.
      for (const count of counts) {
        const wait = msOf(await counters[count.ladder].gate.get(count.key));
        if (wait > 0) return refuse(count.ladder, wait);
      }
      const taken: Count[] = [];
      for (const count of counts) {
        const { ladder, attempts, gate } = counters[count.ladder];
        // The increment is atomic (in memory, and INCR in Redis): concurrent attempts get distinct numbers.
        const n = (await attempts.penalty(count.key, 1)).consumedPoints;
        taken.push(count);
        if (n <= ladder.free) continue;
        const held = await gate.penalty(count.key, 1, { customDuration: delaySecondsOf(ladder, n - ladder.free) });
        if (held.consumedPoints === 1) continue;
        // Someone else holds the gate: this attempt never happened.
        await giveBack(taken);
        return refuse(count.ladder, msOf(held));
      }
      return {
        allowed: true,
        async succeeded() {
          for (const count of taken) {
            const { attempts, gate } = counters[count.ladder];
            if (count.clearOnSuccess === true) {
              await attempts.delete(count.key);
              await gate.delete(count.key);
            } else {
              await attempts.reward(count.key, 1);
            }
          }
        },
      };
    },
    async knows(subject, ip) {
      return (await known.get(`${subject}|${ip}`)) !== null;
    },
    async remember(subject, ip) {
      await known.set(`${subject}|${ip}`, 1, KNOWN_SECONDS);
    },
  };
}

/** Which ladders one credential is counted on (sign-in: the address; the console: the admin token). */
export interface CredentialLadders {
  readonly pair: LadderName;
  readonly ip?: LadderName;
  readonly subject: LadderName;
}

/**
 * Takes one try at a credential: from the subject-and-IP pair (cleared when the try is
 * right), the IP, and the subject itself unless this IP proved the credential lately.
 * `right()` gives the try back; `remember()`, once the whole credential is proved (the
 * second factor too), lets this IP skip the subject's own count from then on.
 */
export async function takeCredentialTry(
  throttle: AttemptThrottle, ladders: CredentialLadders, subject: string, ip: string,
): Promise<RefusedAttempt | { readonly allowed: true; right(): Promise<void>; remember(): Promise<void> }> {
  // Known IPs are remembered per kind of credential, so an address can never pass for the admin token's name.
  const known = `${ladders.pair}:${subject}`;
  const counts: Count[] = [{ ladder: ladders.pair, key: `${subject}|${ip}`, clearOnSuccess: true }];
  if (ladders.ip !== undefined) counts.push({ ladder: ladders.ip, key: ip });
  if (!(await throttle.knows(known, ip))) counts.push({ ladder: ladders.subject, key: subject });
  const attempt = await throttle.take(counts);
  if (!attempt.allowed) return attempt;
  return { allowed: true, right: () => attempt.succeeded(), remember: () => throttle.remember(known, ip) };
}

/** Seconds for Retry-After: whole, at least 1. */
export const retryAfterSeconds = (ms: number): string => String(Math.max(1, Math.ceil(ms / 1000)));

/** The 429 of a refused attempt, with Retry-After. */
export function refuseAttempt(
  reply: FastifyReply, refused: RefusedAttempt, code: 'signInThrottled' | 'attemptsThrottled' | 'invitationsThrottled',
): FastifyReply {
  return sendRejection(reply.header('retry-after', retryAfterSeconds(refused.retryAfterMs)), { code });
}
