import type { Result } from 'ioredis';
import type { Logger } from 'pino';
import { openRedis, RedisOutage } from '../../redis-client.ts';
import { ThroughputPacer, type SubmitPacer } from './smpp-session.ts';

// An SMSC's throughput cap held across every worker bound to it: the same schedule as
// ThroughputPacer (evenly spaced, one submit deep), with the next free slot kept in
// Redis so all workers queue on one line and together stay under the cap over any
// sub-second window. A fixed one-second counter (rate-limiter-flexible's Redis store)
// would let the end of one second and the start of the next both fill up: twice the
// cap within one second as the SMSC sees it.

declare module 'ioredis' {
  interface RedisCommander<Context> {
    heraldSmppPace(key: string, intervalMicros: string): Result<number, Context>;
  }
}

/**
 * Takes the next slot and answers how many microseconds away it is. Redis's clock is
 * the one clock every worker shares; the key lives a second past the last slot taken.
 */
const PACE_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local at = math.max(now, tonumber(redis.call('GET', KEYS[1]) or '0'))
local after = at + tonumber(ARGV[1])
redis.call('SET', KEYS[1], string.format('%.0f', after), 'PX', math.ceil((after - now) / 1000) + 1000)
return at - now
`;

export interface SharedThroughputCapOptions {
  /** HERALD_REDIS_URL. May hold a password: never logged. */
  readonly url: string;
  readonly failure: 'closed' | 'local';
  /** One line per SMSC account: `<prefix>smpp:<host>:<port>:<system_id>`, never the password. */
  readonly key: string;
  readonly perSecond: number;
  readonly logger?: Logger | undefined;
  /** Monotonic milliseconds for the per-process pacer used while Redis is out. */
  readonly now?: (() => number) | undefined;
}

/**
 * A SubmitPacer whose slots come from Redis. While Redis is out: `local` paces this
 * process alone at the full cap (one warning per outage); `closed` rejects, so the
 * submit is not sent and the message is deferred for a later try.
 */
export function sharedThroughputCap(options: SharedThroughputCapOptions): SubmitPacer & { close(): Promise<void> } {
  const redis = openRedis(options.url, { logger: options.logger, name: 'herald-smpp-cap' });
  redis.client.defineCommand('heraldSmppPace', { numberOfKeys: 1, lua: PACE_SCRIPT });
  const intervalMicros = String(Math.round(1_000_000 / options.perSecond));
  const local = new ThroughputPacer(options.perSecond, options.now ?? (() => performance.now()));
  const outage = new RedisOutage(options.logger, {
    down: options.failure === 'closed'
      ? 'Redis unreachable: SMS submits are deferred until it is back (HERALD_REDIS_FAILURE=closed)'
      : 'Redis unreachable: the SMSC throughput cap is held per process until it is back (HERALD_REDIS_FAILURE=local)',
    up: 'Redis reachable again: the SMSC throughput cap is shared again',
  });
  const duringOutage = (): number => {
    if (options.failure === 'closed') throw new Error('SMSC throughput cap cannot be coordinated: Redis unreachable');
    return local.reserve();
  };

  return {
    async reserve() {
      if (outage.skipping) return duringOutage();
      await redis.firstAttempt(1000);
      let waitMicros: number;
      try {
        waitMicros = await redis.client.heraldSmppPace(options.key, intervalMicros);
      } catch (error) {
        outage.failed(error);
        return duringOutage();
      }
      outage.succeeded();
      return waitMicros / 1000;
    },
    close: () => redis.close(),
  };
}
