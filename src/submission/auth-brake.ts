import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

// A brake on guessing keys over SMTP: an address whose AUTH failed 10 times within a
// minute is refused AUTH (454, without looking at what it sends) until a minute has
// passed. Only failures count; a client that authenticates is never slowed.

export const AUTH_FAILURES_ALLOWED = 10;
export const AUTH_WINDOW_SECONDS = 60;

export class AuthBrake {
  readonly #failures: RateLimiterMemory;

  constructor(failures = AUTH_FAILURES_ALLOWED, windowSeconds = AUTH_WINDOW_SECONDS) {
    this.#failures = new RateLimiterMemory({ points: failures, duration: windowSeconds, blockDuration: windowSeconds, keyPrefix: 'smtp-auth' });
  }

  /** Whether this address must wait before its next AUTH. */
  async braked(address: string): Promise<boolean> {
    const state = await this.#failures.get(address);
    return state !== null && state.remainingPoints <= 0 && state.msBeforeNext > 0;
  }

  /** Counts a failed AUTH of this address. */
  async failed(address: string): Promise<void> {
    try {
      await this.#failures.consume(address);
    } catch (error) {
      // Past the allowance: the address is blocked for the window, which braked() reads.
      if (!(error instanceof RateLimiterRes)) throw error;
    }
  }
}
