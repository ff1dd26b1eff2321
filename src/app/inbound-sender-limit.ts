import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Channel } from '../domain/account.ts';

// A bound on what one person may send herald (issue 23, "inbound is hostile input"): at
// most `perMinute` messages a minute from one number or address on one channel, per
// process. Past it the door asks the peer to come back later (the SMSC gets
// ESME_RTHROTTLED, an SMTP client 451, Meta a 503 it retries), so nothing is lost and a
// flood costs herald one counter, not a row each. Simulated messages are not bounded here
// (the sandbox's route has the account's rate limit).

export class InboundSenderLimit {
  readonly #limiter: RateLimiterMemory;

  constructor(perMinute: number) {
    this.#limiter = new RateLimiterMemory({ points: perMinute, duration: 60, keyPrefix: 'inbound-sender' });
  }

  /** Counts one message from `from`; false when it is past the bound and must wait. */
  async admit(channel: Channel, from: string): Promise<boolean> {
    try {
      await this.#limiter.consume(`${channel}:${from}`);
      return true;
    } catch (error) {
      if (error instanceof RateLimiterRes) return false;
      throw error;
    }
  }
}
