import type { Logger } from 'pino';
import type { Metrics } from '../metrics/registry.ts';
import { isStoreUnavailable } from '../store/store-unavailable.ts';

// What a process's requests do when the database does not answer: every such request
// is answered 503 and counted, and the outage is logged twice, once at warn when it
// starts and once when a request finds the store answering again (never once per
// request: an outage under load would write thousands of identical lines).

/** Where the outage's two lines go: the request's logger, so they carry its id. */
export type OutageLog = Pick<Logger, 'warn' | 'info'>;

export class StoreOutage {
  readonly #metrics: Pick<Metrics, 'storeUnavailable'>;
  readonly #now: () => number;
  #since: number | undefined;

  constructor(metrics: Pick<Metrics, 'storeUnavailable'>, now: () => number = Date.now) {
    this.#metrics = metrics;
    this.#now = now;
  }

  /**
   * True when `error` says the database did not answer: the request is to be answered
   * 503. Counted each time; logged on `log` at warn when it is the outage's first.
   */
  noticed(error: unknown, log: OutageLog): boolean {
    if (!isStoreUnavailable(error)) return false;
    this.#metrics.storeUnavailable('database');
    if (this.#since === undefined) {
      this.#since = this.#now();
      log.warn({ err: error }, 'the database does not answer: requests are answered 503 with Retry-After until it does');
    }
    return true;
  }

  /** A request that needed the database succeeded: an outage in progress is over (one line). */
  answered(log: OutageLog): void {
    if (this.#since === undefined) return;
    log.info({ outageMs: this.#now() - this.#since }, 'the database answers again');
    this.#since = undefined;
  }
}
