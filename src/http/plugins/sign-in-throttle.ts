import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';

// Sign-in attempts slowed per address and per client IP (rate-limiter-flexible): each
// failed attempt (wrong address, password or second-factor code) counts against both;
// past the limit, sign-in answers 429 with Retry-After until the window ends, without
// checking anything, so guessing costs the guesser time and herald no scrypt work. A
// successful sign-in clears its address's count. With HERALD_REDIS_URL the counts are
// kept in Redis, shared by every API process; while Redis cannot be reached (and
// without it) each process counts on its own (rate-limiter-flexible's insurance
// limiter), so sign-in never stops working for want of Redis.

export interface SignInLimits {
  /** Failed attempts per address within the window. */
  readonly perAddress: number;
  /** Failed attempts per client IP within the window (an office behind one NAT signs in from one IP). */
  readonly perIp: number;
  readonly windowSeconds: number;
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = { perAddress: 5, perIp: 50, windowSeconds: 900 };

export interface SignInThrottle {
  /** Milliseconds until the address and IP may try again; 0: now. */
  wait(ip: string, address: string): Promise<number>;
  failed(ip: string, address: string): Promise<void>;
  succeeded(address: string): Promise<void>;
}

async function waitOf(limiter: RateLimiterAbstract, key: string, points: number): Promise<number> {
  const res = await limiter.get(key);
  return res !== null && res.consumedPoints >= points ? Math.max(1, res.msBeforeNext) : 0;
}

/** Where the counts are shared: the process's Redis client and HERALD_REDIS_PREFIX. */
export interface SharedCounts {
  readonly client: Redis;
  readonly keyPrefix: string;
}

export function signInThrottle(limits: SignInLimits = DEFAULT_SIGN_IN_LIMITS, shared?: SharedCounts): SignInThrottle {
  const limiter = (name: string, points: number): RateLimiterAbstract => {
    const local = new RateLimiterMemory({ keyPrefix: `signin-${name}`, points, duration: limits.windowSeconds });
    if (shared === undefined) return local;
    return new RateLimiterRedis({
      storeClient: shared.client, keyPrefix: `${shared.keyPrefix}signin-${name}`, points, duration: limits.windowSeconds,
      rejectIfRedisNotReady: true, insuranceLimiter: local,
    });
  };
  const byAddress = limiter('address', limits.perAddress);
  const byIp = limiter('ip', limits.perIp);
  return {
    async wait(ip, address) {
      return Math.max(await waitOf(byAddress, address, limits.perAddress), await waitOf(byIp, ip, limits.perIp));
    },
    async failed(ip, address) {
      await byAddress.penalty(address, 1);
      await byIp.penalty(ip, 1);
    },
    async succeeded(address) {
      await byAddress.delete(address);
    },
  };
}
