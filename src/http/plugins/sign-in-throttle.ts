import { RateLimiterMemory, type RateLimiterAbstract } from 'rate-limiter-flexible';

// Sign-in attempts slowed per address and per client IP (rate-limiter-flexible): each
// failed attempt (wrong address, password or second-factor code) counts against both;
// past the limit, sign-in answers 429 with Retry-After until the window ends, without
// checking anything, so guessing costs the guesser time and herald no scrypt work. A
// successful sign-in clears its address's count. Counted in this process; with
// several API processes each counts on its own (docs/users-and-sessions.md).

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

export function signInThrottle(limits: SignInLimits = DEFAULT_SIGN_IN_LIMITS): SignInThrottle {
  const byAddress = new RateLimiterMemory({ keyPrefix: 'signin-address', points: limits.perAddress, duration: limits.windowSeconds });
  const byIp = new RateLimiterMemory({ keyPrefix: 'signin-ip', points: limits.perIp, duration: limits.windowSeconds });
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
