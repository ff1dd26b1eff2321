import type { Logger } from 'pino';
import { guardedPost, keepAliveAgents, type GuardedFetchOptions, type KeepAliveAgents, type PostOutcome } from '../channels/guarded-fetch.ts';
import type { Db } from '../store/database.ts';
import type { DialectCapabilities } from '../store/dialect.ts';
import {
  claimDueDeliveries, recordAttempts, releaseAllDeliveryLeases, type AttemptRecord, type ClaimedDelivery,
} from '../store/webhook-deliveries.ts';
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
  readonly clock: () => number;
  readonly newId: () => string;
  readonly capabilities: DialectCapabilities;
  readonly logger: Logger;
  /** HERALD_FETCH_ALLOW_PRIVATE. */
  readonly allowPrivate: boolean;
  /** Host name resolver of the private-address guard; default: the system's. */
  readonly lookup?: GuardedFetchOptions['lookup'];
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
 * The webhook delivery loop, the outbox worker's twin for events: claims due
 * deliveries with a lease into free slots, posts each signed with the account's
 * current secret(s) to its current URL, and records each outcome (2xx: succeeded;
 * anything else, a network error or the time-out: the next slot of the schedule,
 * or failed once the schedule is spent). Outcomes are written in batches, one
 * transaction for whatever finished while the previous batch was being written; a
 * slot is free again as soon as its answer is in.
 * Modes as the worker's: idle until wake() or the poll, claiming while slots are
 * free, stopping (no new claims; in-flight posts finish within their time-out).
 */
export class WebhookDispatcher {
  readonly #deps: DispatcherDeps;
  readonly #options: DispatcherOptions;
  readonly #signer = new WebhookSigner();
  readonly #agents: KeepAliveAgents;
  readonly #inFlight = new Set<Promise<void>>();
  #running = false;
  #loop: Promise<void> | undefined;
  #wakeUp: (() => void) | undefined;
  #woken = false;
  /** A claim was held back for want of free slots (or came back full): a freed slot should claim again. */
  #starved = false;
  /** Finished attempts waiting for the next write; their deliveries stay leased until it commits. */
  #unrecorded: AttemptRecord[] = [];
  /** The write under way, if any. */
  #writing: Promise<void> | undefined;

  constructor(deps: DispatcherDeps, options: DispatcherOptions) {
    this.#deps = deps;
    this.#options = options;
    this.#agents = keepAliveAgents(options.maxSocketsPerOrigin);
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#recoverLeases().then(() => this.#run());
  }

  /** Something may be due: an event was recorded, a delivery finished, a retry was asked for. */
  wake(): void {
    this.#woken = true;
    this.#wakeUp?.();
  }

  /** Claims nothing more and waits for the posts in flight and their writes; start() resumes. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#wakeUp?.();
    await this.#loop;
    await this.#settled();
  }

  /** stop(), then hangs up every kept-alive connection. */
  async close(): Promise<void> {
    await this.stop();
    this.#agents.destroy();
  }

  /** Claims and posts until nothing is due and nothing is in flight; for tests and benchmarks. Returns the posts started. */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const started = await this.#claim(true);
      total += started;
      await this.#settled();
      if (started === 0) return total;
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
      try {
        await this.#claim(false);
      } catch (error) {
        // A store hiccup must not end the loop; the next poll tries again.
        this.#deps.logger.error({ err: error }, 'webhook claim failed');
      }
    }
  }

  /**
   * One claim into the free slots. While posts are in flight the slots refill in
   * batches (a quarter of them), which keeps claims few and large; a full claim means
   * more may be due, so the loop goes round again.
   */
  async #claim(anyFreeSlot: boolean): Promise<number> {
    const { owner, leaseMs, batchSize, concurrency } = this.#options;
    const free = concurrency - this.#inFlight.size;
    const refillAt = anyFreeSlot ? 1 : Math.max(1, Math.min(batchSize, Math.ceil(concurrency / 4)));
    if (free <= 0 || (this.#inFlight.size > 0 && free < refillAt)) {
      this.#starved = true;
      return 0;
    }
    this.#starved = false;
    const limit = Math.min(free, batchSize);
    const now = this.#deps.clock();
    const claimed = await claimDueDeliveries(this.#deps.db, this.#deps.capabilities, { owner, now, leaseMs, limit });
    if (claimed.length === 0) return 0;
    const targets = await this.#targets(claimed, now);
    for (const delivery of claimed) {
      // The slot is free once the answer is in; the outcome's write follows on its own (the lease holds meanwhile).
      const post = this.#deliver(delivery, targets.get(delivery.accountId) ?? { url: null, secrets: [] }).then((record) => this.#queue(record)).finally(() => {
        this.#inFlight.delete(post);
        // Only a claim that was held back needs the freed slot; new events wake the loop themselves.
        if (this.#starved) this.wake();
      });
      this.#inFlight.add(post);
    }
    if (claimed.length === limit) {
      // More may be due: claim again at once, or as soon as slots free up.
      this.#woken = true;
      this.#starved = true;
    }
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
        outcome = { answered: false, reason: `internal error: ${error instanceof Error ? error.message : String(error)}`, permanent: false };
      }
      const durationMs = Math.round(performance.now() - started);
      const now = this.#deps.clock();
      record = { deliveryId: delivery.id, attempts: attempt, at, url: target.url, durationMs, ...resultOf(outcome, attempt, now) };
    }
    this.#deps.logger.debug({ delivery: delivery.id, attempt, status: record.next.status, statusCode: record.statusCode }, 'webhook attempt');
    return record;
  }

  /**
   * Queues an outcome for the next batched write. The write starts on the next turn of
   * the event loop, so the answers that arrived in this one share its commit; outcomes
   * that arrive while it is being written go into the one after.
   */
  #queue(record: AttemptRecord): void {
    this.#unrecorded.push(record);
    this.#writing ??= this.#write();
  }

  async #write(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    while (this.#unrecorded.length > 0) {
      const batch = this.#unrecorded.splice(0);
      try {
        const recorded = await recordAttempts(this.#deps.db, this.#options.owner, batch, { now: this.#deps.clock(), newId: this.#deps.newId });
        const lost = batch.length - recorded.size;
        if (lost > 0) this.#deps.logger.warn({ lost }, 'webhook leases expired before their outcome was recorded; those deliveries are posted again');
      } catch (error) {
        // The store is down: the leases expire and the deliveries are posted again (same webhook-id).
        this.#deps.logger.error({ err: error }, 'could not record webhook attempts');
      }
      // A message's next event is due once this one's outcome is final and written.
      if (batch.some((record) => record.next.status !== 'pending')) this.wake();
    }
    // Cleared in the same turn as the last check above, so no queued outcome is left without a writer.
    this.#writing = undefined;
  }

  /** Until no post is in flight and every outcome is written. */
  async #settled(): Promise<void> {
    while (this.#inFlight.size > 0 || this.#writing !== undefined) {
      await Promise.allSettled([...this.#inFlight, ...(this.#writing === undefined ? [] : [this.#writing])]);
    }
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
