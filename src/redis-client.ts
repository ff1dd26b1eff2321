import { Redis } from 'ioredis';
import type { Logger } from 'pino';

// The Redis connection of the shared counters (account rate limits, SMPP throughput
// caps). Redis is an accelerator here, never a dependency of staying up: a command
// fails fast instead of waiting for a connection, and the client reconnects on its own.

/**
 * How long one command may take before the caller treats Redis as unreachable. The
 * timer runs on the same event loop as the reply, so a process starved of CPU for this
 * long would mistake a healthy Redis for an outage: 500 ms leaves room for that while
 * a hung Redis still costs one request half a second at most.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 500;

export interface SharedRedis {
  readonly client: Redis;
  /**
   * Resolves when the first connection attempt has ended (ready or failed), or after
   * `waitMs`: requests that arrive while the process is starting are not refused for
   * the few milliseconds the connection takes.
   */
  firstAttempt(waitMs: number): Promise<void>;
  close(): Promise<void>;
}

export function openRedis(url: string, options: { logger?: Logger | undefined; name: string; commandTimeoutMs?: number }): SharedRedis {
  const client = new Redis(url, {
    connectionName: options.name,
    // No queue while disconnected, no re-sending after a reconnect: a limit decided late is worthless.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 2000,
  });
  let attempted = false;
  const attemptEnded = (): void => {
    attempted = true;
  };
  client.once('ready', attemptEnded);
  client.once('error', attemptEnded);
  // Without a listener ioredis prints every failed reconnect; the users log outages once each.
  client.on('error', (error: Error) => options.logger?.debug({ err: error, redis: options.name }, 'Redis connection error'));
  return {
    client,
    firstAttempt(waitMs) {
      if (attempted || client.status === 'end') return Promise.resolve();
      return new Promise((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          client.off('ready', done);
          client.off('error', done);
          resolve();
        };
        const timer = setTimeout(done, waitMs);
        client.once('ready', done);
        client.once('error', done);
      });
    },
    async close() {
      if (client.status === 'ready') {
        try {
          await client.quit();
          return;
        } catch {
          // Fall through to a hard disconnect.
        }
      }
      client.disconnect();
    },
  };
}

/** While Redis is out it is asked again at most this often, so a Redis that stopped answering costs one caller the command time-out, not every caller. */
export const ASK_AGAIN_AFTER_MS = 1000;

/**
 * One user's view of Redis being out: a warning when an outage starts, an info line
 * when it ends (never one per failed command), and whether to skip asking for now.
 */
export class RedisOutage {
  readonly #logger: Logger | undefined;
  readonly #texts: { readonly down: string; readonly up: string };
  readonly #now: () => number;
  #since: number | undefined;
  #askAgainAt = 0;

  constructor(logger: Logger | undefined, texts: { readonly down: string; readonly up: string }, now: () => number = Date.now) {
    this.#logger = logger;
    this.#texts = texts;
    this.#now = now;
  }

  /** True for a short while after a failure: answer as during the outage without asking. */
  get skipping(): boolean {
    return this.#since !== undefined && this.#now() < this.#askAgainAt;
  }

  failed(error: unknown): void {
    const at = this.#now();
    this.#askAgainAt = at + ASK_AGAIN_AFTER_MS;
    if (this.#since !== undefined) return;
    this.#since = at;
    this.#logger?.warn({ err: error }, this.#texts.down);
  }

  succeeded(): void {
    if (this.#since === undefined) return;
    this.#logger?.info({ outageMs: this.#now() - this.#since }, this.#texts.up);
    this.#since = undefined;
  }
}
