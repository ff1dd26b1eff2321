import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

/** The verdict for one request, with what the IETF RateLimit headers need. */
export interface RateDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  readonly resetMs: number;
}

export interface AccountRateLimiter {
  consume(accountId: string, limitPerSecond: number): Promise<RateDecision>;
}

/**
 * Per-account limit of N requests per one-second window (N = the account's
 * rateLimitPerSecond, default 2, so a burst of 2). One limiter per distinct N, since
 * rate-limiter-flexible fixes points per limiter; the Redis store of the scale-out
 * issue implements the same interface.
 */
export function memoryRateLimiter(): AccountRateLimiter {
  const limiters = new Map<number, RateLimiterMemory>();
  const limiterFor = (points: number): RateLimiterMemory => {
    let limiter = limiters.get(points);
    if (!limiter) {
      limiter = new RateLimiterMemory({ points, duration: 1, keyPrefix: `rl${points}` });
      limiters.set(points, limiter);
    }
    return limiter;
  };
  return {
    async consume(accountId, limitPerSecond) {
      try {
        const res = await limiterFor(limitPerSecond).consume(accountId);
        return { allowed: true, limit: limitPerSecond, remaining: res.remainingPoints, resetMs: res.msBeforeNext };
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        return { allowed: false, limit: limitPerSecond, remaining: 0, resetMs: rejection.msBeforeNext };
      }
    },
  };
}

/** `RateLimit-*` (draft-ietf-httpapi-ratelimit-headers) and, when refused, `Retry-After`. */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  const resetSeconds = String(Math.max(1, Math.ceil(decision.resetMs / 1000)));
  const headers: Record<string, string> = {
    'ratelimit-policy': `${decision.limit};w=1`,
    'ratelimit-limit': String(decision.limit),
    'ratelimit-remaining': String(decision.remaining),
    'ratelimit-reset': resetSeconds,
  };
  if (!decision.allowed) headers['retry-after'] = resetSeconds;
  return headers;
}
