import type { Channel } from '../../domain/account.ts';

// When to try again after a transient failure, and when to stop trying. The horizon
// is how long a message may stay undelivered after it was accepted (MTAs keep mail
// for days; a text or a WhatsApp message that arrives a day late has lost its point).

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export type RetryHorizons = Readonly<Record<Channel, number>>;

export const RETRY_HORIZON_MS: RetryHorizons = {
  email: 72 * HOUR,
  sms: 24 * HOUR,
  whatsapp: 24 * HOUR,
};

/** Exponential backoff: 30 s, 1 min, 2 min … capped at 1 h, with ±20 % jitter so retries do not arrive in waves. */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(30_000 * 2 ** Math.max(0, attempt - 1), HOUR);
  return Math.round(base * (0.8 + 0.4 * random()));
}

export function withinHorizon(channel: Channel, createdAt: number, now: number, horizons: RetryHorizons = RETRY_HORIZON_MS): boolean {
  return now - createdAt < horizons[channel];
}
