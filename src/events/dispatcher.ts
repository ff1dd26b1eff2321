import type { Logger } from 'pino';
import { guardedPost, keepAliveAgents, type GuardedFetchOptions, type KeepAliveAgents, type PostOutcome } from '../channels/guarded-fetch.ts';
import type { Metrics } from '../metrics/registry.ts';
import type { Db } from '../store/database.ts';
import { transactionPerWork, type Committer } from '../store/group-commit.ts';
import type { DialectCapabilities } from '../store/dialect.ts';
import { recordAndClaim, releaseAllDeliveryLeases, type AttemptRecord, type ClaimedDelivery } from '../store/webhook-deliveries.ts';
import { findWebhookSettingsOf, setWebhookSecretIfMissing, type WebhookSettings } from '../store/webhook-settings.ts';
import { newWebhookSecret, WebhookSigner } from './signature.ts';
import { nextAttemptDelayMs } from './webhook-schedule.ts';

export interface DispatcherOptions {
  readonly owner: string;
  /** Largest claim of one statement. */
  readonly batchSize: number;
  /** Posts in flight at once, over every receiver. */
  readonly concurrency: number;
  /** Sockets kept open to one receiver (host and port). */
  readonly maxSocketsPerOrigin: number;
  /** Longer than timeoutMs: a lease outliving its post is what lets another dispatcher take over after a crash. */
  readonly leaseMs: number;
  /** Fallback poll when nobody calls wake(): retries falling due, leases expiring, events recorded elsewhere. */
  readonly pollMs: number;
  /** HERALD_WEBHOOK_TIMEOUT_MS: one attempt, from the moment it has a connection (or is opening one) to the answer's status. */
  readonly timeoutMs: number;
}

// 128 posts in flight over at most 32 sockets per receiver: a receiver at loopback
// speed keeps every socket busy, and one that answers slowly holds 128 / 32 = 4 rounds
// of its time-out at most, well inside the lease.
export const DEFAULT_DISPATCHER_OPTIONS: Omit<DispatcherOptions, 'owner'> = {
  batchSize: 128, concurrency: 128, maxSocketsPerOrigin: 32, leaseMs: 5 * 60_000, pollMs: 1000, timeoutMs: 10_000,
};

export interface DispatcherDeps {
  readonly db: Db;
  /** Commits each step (grouped with other writers on SQLite); default: a transaction of its own. */
  readonly commit?: Committer;
  readonly clock: () => number;
  readonly newId: () => string;
  readonly capabilities: DialectCapabilities;
  readonly logger: Logger;
  /** HERALD_FETCH_ALLOW_PRIVATE. */
  readonly allowPrivate: boolean;
  /** Host name resolver of the private-address guard; default: the system's. */
  readonly lookup?: GuardedFetchOptions['lookup'];
  /** Counts attempts by outcome (herald_webhook_attempts_total); absent in tests that build a bare dispatcher. */
  readonly metrics?: Metrics;
}

/** Where and how one account's deliveries are posted, read once per claimed batch. */
interface Target {
  readonly url: string | null;
  /** The current secret, then the previous one while its overlap lasts. */
  readonly secrets: readonly string[];
}

/** The store notification channel that wakes the dispatchers of other processes (PostgreSQL LISTEN/NOTIFY). */
export const WEBHOOK_WAKE = 'herald_webhooks';

// The `last_error` of a delivery whose account has no webhook URL any more when its turn comes.
export const NO_WEBHOOK_URL = 'no webhook URL';
// What of a receiver's non-2xx answer is kept with the attempt, after the status.
const EXCERPT_CHARS = 200;

/**
 * The webhook delivery loop, the outbox worker's twin for events. Each step is one
 * unit of work: the outcomes of the posts that finished since the last step are written
 * (2xx: succeeded; anything else, a network error or the time-out: the next slot of the
 * schedule, or failed once it is spent), then due deliveries are leased into the free
 * slots, so a busy dispatcher pays one durable commit per step, not per event (on
 * SQLite the group committer folds it into the commit of events being recorded). Each
 * leased delivery is posted, signed with the account's current secret(s), to its
 * current URL; its slot is free again as soon as the answer is in.
 * Modes as the worker's: idle until wake() or the poll; stepping while there are
 * outcomes to write or slots to fill; stopping (no new claims; the posts in flight
 * finish within their time-out and their outcomes are written).
 */
export class WebhookDispatcher {
  readonly #deps: DispatcherDeps;
  readonly #options: DispatcherOptions;
  readonly #signer = new WebhookSigner();
  readonly #agents: KeepAliveAgents;
  readonly #commit: Committer;
  readonly #inFlight = new Set<Promise<void>>();
  #running = false;
  #loop: Promise<void> | undefined;
  #wakeUp: (() => void) | undefined;
  #woken = false;
  /** Outcomes of finished posts, written by the next step; their deliveries stay leased until then. */
  #unrecorded: AttemptRecord[] = [];
  /** Steps run one at a time (the loop's and drain()'s). */
  #steps: Promise<unknown> = Promise.resolve();

  constructor(deps: DispatcherDeps, options: DispatcherOptions) {
    this.#deps = deps;
    this.#options = options;
    this.#agents = keepAliveAgents(options.maxSocketsPerOrigin);
    this.#commit = deps.commit ?? transactionPerWork(deps.db);
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#recoverLeases().then(() => this.#run());
  }

  /** Something may be due or finished: an event was recorded, a retry was asked for, a post was answered. */
  wake(): void {
    this.#woken = true;
    this.#wakeUp?.();
  }

  /** Claims nothing more, waits for the posts in flight and writes their outcomes; start() resumes. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#wakeUp?.();
    await this.#loop;
    await this.#flush();
  }

  /** stop(), then hangs up every kept-alive connection. */
  async close(): Promise<void> {
    await this.stop();
    this.#agents.destroy();
  }

  /**
   * Steps until nothing is due, nothing is in flight and every outcome is written; for
   * tests and benchmarks (without start()). Returns the posts started.
   */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const started = await this.#step(true);
      total += started;
      await this.#postsSettled();
      if (started === 0 && this.#unrecorded.length === 0) return total;
    }
  }

  async #recoverLeases(): Promise<void> {
    if (!this.#deps.capabilities.singleServerProcess) return;
    try {
      const released = await releaseAllDeliveryLeases(this.#deps.db);
      if (released > 0) this.#deps.logger.warn({ released }, 'released the webhook leases of a previous run that did not stop cleanly; those deliveries are posted again');
    } catch (error) {
      this.#deps.logger.error({ err: error }, 'could not release old webhook leases; they will expire');
    }
  }

  async #run(): Promise<void> {
    this.#woken = true; // deliveries may be due from before this start
    while (this.#running) {
      if (!this.#woken) await this.#idle();
      if (!this.#running) break;
      this.#woken = false;
      // The answers and commits of this turn of the event loop go into one step.
      await new Promise((resolve) => setImmediate(resolve));
      try {
        await this.#step(false);
      } catch (error) {
        // A store hiccup must not end the loop; the next poll tries again.
        this.#deps.logger.error({ err: error }, 'webhook step failed');
      }
    }
  }

  /** Waits for the posts in flight, writing their outcomes, without claiming more. */
  async #flush(): Promise<void> {
    while (this.#inFlight.size > 0 || this.#unrecorded.length > 0) {
      await this.#postsSettled();
      if (this.#unrecorded.length > 0) await this.#step(false, false);
    }
  }

  #step(anyFreeSlot: boolean, claim = true): Promise<number> {
    const step = this.#steps.then(() => this.#stepNow(anyFreeSlot, claim));
    this.#steps = step.catch(() => {});
    return step;
  }

  /**
   * One transaction: the outcomes waiting are written, then due deliveries are claimed
   * into the free slots when there are enough of them. While posts are in flight the
   * slots refill in batches (a quarter of them), which keeps claims few and large; a
   * full claim means more may be due. Returns how many posts it started.
   */
  async #stepNow(anyFreeSlot: boolean, claim: boolean): Promise<number> {
    const { owner, leaseMs, batchSize, concurrency } = this.#options;
    const free = concurrency - this.#inFlight.size;
    const refillAt = anyFreeSlot ? 1 : Math.max(1, Math.min(batchSize, Math.ceil(concurrency / 4)));
    const claiming = claim && free > 0 && (this.#inFlight.size === 0 || free >= refillAt);
    const records = this.#unrecorded.splice(0);
    if (records.length === 0 && !claiming) return 0;

    const limit = Math.min(free, batchSize);
    const now = this.#deps.clock();
    let recorded: Set<string>;
    let claimed: ClaimedDelivery[];
    try {
      ({ recorded, claimed } = await recordAndClaim(this.#commit, this.#deps.capabilities, {
        owner, now, newId: this.#deps.newId, records, ...(claiming ? { claim: { leaseMs, limit } } : {}),
      }));
    } catch (error) {
      // The store is down: the leases run out and those deliveries are posted again (same webhook-id).
      if (records.length > 0) this.#deps.logger.error({ err: error, outcomes: records.length }, 'could not record webhook attempts');
      throw error;
    }
    const lost = records.length - recorded.size;
    if (lost > 0) this.#deps.logger.warn({ lost }, 'webhook leases expired before their outcome was recorded; those deliveries are posted again');
    for (const record of records) this.#deps.metrics?.webhookObserved(!recorded.has(record.deliveryId) ? 'lease-lost' : record.next.status === 'pending' ? 'retry' : record.next.status);
    if (claimed.length === 0) return 0;

    const targets = await this.#targets(claimed, now);
    for (const delivery of claimed) {
      // The slot is free once the answer is in; the outcome is written by the next step (the lease holds meanwhile).
      const post = this.#deliver(delivery, targets.get(delivery.accountId) ?? { url: null, secrets: [] }).then((record) => {
        this.#unrecorded.push(record);
      }).finally(() => {
        this.#inFlight.delete(post);
        this.wake();
      });
      this.#inFlight.add(post);
    }
    // More may be due: step again at once (the claim waits for free slots if need be).
    if (claimed.length === limit) this.#woken = true;
    return claimed.length;
  }

  /** The accounts' URLs and secrets as they are now: a changed URL or a rotation applies to the next post. */
  async #targets(claimed: readonly ClaimedDelivery[], now: number): Promise<Map<string, Target>> {
    const accountIds = [...new Set(claimed.map((d) => d.accountId))];
    let settings = await findWebhookSettingsOf(this.#deps.db, accountIds);
    // A URL set by a path that did not make a secret (it is made on first use): make it now.
    const unsigned = [...settings.values()].filter((s) => s.url !== null && s.secret === null);
    if (unsigned.length > 0) {
      for (const s of unsigned) await setWebhookSecretIfMissing(this.#deps.db, s.accountId, newWebhookSecret());
      settings = await findWebhookSettingsOf(this.#deps.db, accountIds);
    }
    return new Map([...settings.values()].map((s) => [s.accountId, targetOf(s, now)]));
  }

  async #deliver(delivery: ClaimedDelivery, target: Target): Promise<AttemptRecord> {
    const attempt = delivery.attempts + 1;
    let record: AttemptRecord;
    if (target.url === null || target.secrets.length === 0) {
      // Nothing to post to: failed at once, kept in the log, replayable once a URL is set.
      const now = this.#deps.clock();
      record = {
        deliveryId: delivery.id, attempts: delivery.attempts, at: now, url: null, statusCode: null, error: NO_WEBHOOK_URL, durationMs: 0,
        next: { status: 'failed' },
      };
    } else {
      const at = this.#deps.clock();
      const started = performance.now();
      let outcome: PostOutcome;
      try {
        outcome = await guardedPost(target.url, {
          allowPrivate: this.#deps.allowPrivate,
          timeoutMs: this.#options.timeoutMs,
          headers: { ...this.#signer.headers(delivery.id, new Date(at), delivery.payload, target.secrets), 'content-type': 'application/json' },
          body: delivery.payload,
          agents: this.#agents,
          ...(this.#deps.lookup === undefined ? {} : { lookup: this.#deps.lookup }),
        });
      } catch (error) {
        // A bug or an unreadable stored secret: an attempt that failed, retried on the schedule, and said why.
        this.#deps.logger.error({ err: error, delivery: delivery.id }, 'webhook post threw');
        this.#deps.metrics?.unexpectedError('webhooks');
        outcome = { answered: false, reason: `internal error: ${error instanceof Error ? error.message : String(error)}`, permanent: false };
      }
      const durationMs = Math.round(performance.now() - started);
      const now = this.#deps.clock();
      record = { deliveryId: delivery.id, attempts: attempt, at, url: target.url, durationMs, ...resultOf(outcome, attempt, now) };
    }
    this.#deps.logger.debug({ delivery: delivery.id, attempt, status: record.next.status, statusCode: record.statusCode }, 'webhook attempt');
    return record;
  }

  async #postsSettled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /** Sleeps until wake() or the poll timer. */
  #idle(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#woken = true;
        done();
      }, this.#options.pollMs);
      const done = (): void => {
        clearTimeout(timer);
        this.#wakeUp = undefined;
        resolve();
      };
      this.#wakeUp = done;
    });
  }
}

function targetOf(settings: WebhookSettings, now: number): Target {
  const secrets: string[] = [];
  if (settings.secret !== null) secrets.push(settings.secret);
  if (settings.previousSecret !== null && settings.previousSecretUntil !== null && now < settings.previousSecretUntil) secrets.push(settings.previousSecret);
  return { url: settings.url, secrets };
}

/** What an outcome means for the delivery: 2xx succeeded; anything else waits for its next slot, or fails. */
function resultOf(outcome: PostOutcome, attempt: number, now: number): Pick<AttemptRecord, 'statusCode' | 'error' | 'next'> {
  if (outcome.answered && outcome.status >= 200 && outcome.status <= 299) return { statusCode: outcome.status, error: null, next: { status: 'succeeded' } };
  const error = outcome.answered ? answerError(outcome.status, outcome.excerpt) : outcome.reason;
  const delay = nextAttemptDelayMs(attempt);
  return {
    statusCode: outcome.answered ? outcome.status : null,
    error,
    next: delay === undefined ? { status: 'failed' } : { status: 'pending', nextAttemptAt: now + delay },
  };
}

function answerError(status: number, excerpt: string): string {
  // Printable text only: the log and the API show it as is.
  const text = excerpt.replace(/[\p{Cc}\p{Cf}]+/gu, ' ').trim().slice(0, EXCERPT_CHARS);
  return text === '' ? `HTTP ${status}` : `HTTP ${status}: ${text}`;
}
