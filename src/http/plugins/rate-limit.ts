import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from 'pino';

/** The verdict for one request, with what the IETF RateLimit headers need. */
export interface RateDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  readonly resetMs: number;
}

export interface AccountRateLimiter {
  /**
   * `'unavailable'`: the shared counter could not be asked and the operator chose to
   * refuse requests until it can (HERALD_REDIS_FAILURE=closed).
   */
  consume(accountId: string, limitPerSecond: number): Promise<RateDecision | 'unavailable'>;
}

/** What to do while Redis cannot be reached: refuse with 503, or count in each process. */
export type RedisFailureMode = 'closed' | 'local';

/** One limiter per distinct N, since rate-limiter-flexible fixes points per limiter. */
function perLimit<L>(make: (points: number) => L): (points: number) => L {
  const limiters = new Map<number, L>();
  return (points) => {
    let limiter = limiters.get(points);
    if (!limiter) {
      limiter = make(points);
      limiters.set(points, limiter);
    }
    return limiter;
  };
}

/** Takes one point; a refusal is a decision, any other failure (the store's) is thrown. */
async function decide(limiter: RateLimiterAbstract, accountId: string, limit: number): Promise<RateDecision> {
  try {
    const res = await limiter.consume(accountId);
    return { allowed: true, limit, remaining: res.remainingPoints, resetMs: res.msBeforeNext };
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    return { allowed: false, limit, remaining: 0, resetMs: rejection.msBeforeNext };
  }
}

/**
 * Per-account limit of N requests per one-second window (N = the account's
 * rateLimitPerSecond, default 2, so a burst of 2), counted in this process.
 */
export function memoryRateLimiter(): { consume(accountId: string, limitPerSecond: number): Promise<RateDecision> } {
  const limiterFor = perLimit((points) => new RateLimiterMemory({ points, duration: 1, keyPrefix: `rl${points}` }));
  return {
    consume: (accountId, limitPerSecond) => decide(limiterFor(limitPerSecond), accountId, limitPerSecond),
  };
}

export interface RedisRateLimiterOptions {
  /** HERALD_REDIS_URL. May hold a password: never logged. */
  readonly url: string;
  readonly failure: RedisFailureMode;
  /** HERALD_REDIS_PREFIX; keys are `<prefix>rl:<N>:<account id>` (a signed-in user's: `…:user:<user id>`). */
  readonly keyPrefix: string;
  readonly logger?: Logger | undefined;
  readonly commandTimeoutMs?: number;
}

/**
 * The same limit counted in Redis, so every API process shares one window per
 * account (rate-limiter-flexible's atomic INCR + PTTL script). An unreachable Redis
 * never throws out of consume: per `failure`, the request is refused (503) or counted
 * by this process's own limiter, with one warning per outage. The fallback is done
 * here rather than through the library's insuranceLimiter so that the outage's start
 * and end are known exactly (one warning, one recovery line).
 */
export async function redisRateLimiter(options: RedisRateLimiterOptions): Promise<AccountRateLimiter & { close(): Promise<void> }> {
  // Loaded lazily: ioredis adds ~20 MB resident to a process that has no Redis.
  const { openRedis, REDIS_COMMAND_TIMEOUT_MS, RedisOutage } = await import('../../redis-client.ts');
  const { failure } = options;
  const commandTimeoutMs = options.commandTimeoutMs ?? REDIS_COMMAND_TIMEOUT_MS;
  const redis = openRedis(options.url, { logger: options.logger, name: 'herald-rate-limit', commandTimeoutMs });
  const sharedFor = perLimit((points) => new RateLimiterRedis({
    storeClient: redis.client, points, duration: 1, keyPrefix: `${options.keyPrefix}rl:${points}`,
    // Fail at once while disconnected instead of waiting for the command time-out.
    rejectIfRedisNotReady: true,
  }));
  const local = memoryRateLimiter();
  const outage = new RedisOutage(options.logger, {
    down: failure === 'closed'
      ? 'Redis unreachable: API requests are refused with 503 until it is back (HERALD_REDIS_FAILURE=closed)'
      : 'Redis unreachable: account rate limits are counted per process until it is back (HERALD_REDIS_FAILURE=local)',
    up: 'Redis reachable again: account rate limits are shared again',
  });
  const duringOutage = (accountId: string, limit: number): Promise<RateDecision | 'unavailable'> =>
    failure === 'closed' ? Promise.resolve('unavailable') : local.consume(accountId, limit);

  return {
    async consume(accountId, limitPerSecond) {
      if (outage.skipping) return duringOutage(accountId, limitPerSecond);
      await redis.firstAttempt(commandTimeoutMs);
      let decision: RateDecision;
      try {
        decision = await decide(sharedFor(limitPerSecond), accountId, limitPerSecond);
      } catch (error) {
        outage.failed(error);
        return duringOutage(accountId, limitPerSecond);
      }
      outage.succeeded();
      return decision;
    },
    close: () => redis.close(),
  };
}

/**
 * The limiter the configuration asks for: Redis-shared when HERALD_REDIS_URL is set,
 * else in-process; `given` (a test's own) wins and stays its owner's to close.
 */
export async function configuredRateLimiter(
  config: { readonly redisUrl: string | undefined; readonly redisFailure: RedisFailureMode; readonly redisPrefix: string },
  logger: Logger | undefined,
  given?: AccountRateLimiter,
): Promise<{ readonly limiter: AccountRateLimiter; close(): Promise<void> }> {
  if (given !== undefined) return { limiter: given, close: async () => {} };
  if (config.redisUrl === undefined) return { limiter: memoryRateLimiter(), close: async () => {} };
  const limiter = await redisRateLimiter({ url: config.redisUrl, failure: config.redisFailure, keyPrefix: config.redisPrefix, logger });
  return { limiter, close: () => limiter.close() };
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
