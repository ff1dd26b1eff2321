import type { Logger } from 'pino';
import { guardedPost, keepAliveAgents, type GuardedFetchOptions, type KeepAliveAgents, type PostOutcome } from '../../channels/guarded-fetch.ts';
import type { Db } from '../../store/database.ts';
import type { Metrics } from '../../metrics/registry.ts';
import { LeaseLoop, loopSettings, type LeaseQueue } from '../lease-loop.ts';
import { transactionPerWork, type Committer } from '../../store/group-commit.ts';
import type { DialectCapabilities } from '../../store/dialect.ts';
import { findWebhookSettingsOf, type WebhookSettings } from '../../store/webhook-settings.ts';
import { findWebhookEndpointsById } from '../../store/webhook-endpoints.ts';
import { releaseAllDeliveryLeases, type ClaimedDelivery } from './claim.ts';
import { recordAndClaim, type AttemptRecord } from './record.ts';
import { nextStepAfter, verdictOf } from './retry-policy.ts';
import { WebhookSigner } from '../../webhooks/signature.ts';

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
  /** Delivery held (app/delivery-hold.ts): nothing is claimed meanwhile. */
  readonly held?: () => boolean;
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
  /** Why nothing is posted to the URL: the endpoint answered 410 Gone. */
  readonly disabledReason: string | null;
}

/** A leased delivery and where it goes. */
interface Job {
  readonly delivery: ClaimedDelivery;
  readonly target: Target;
}

/** The dispatcher's one lane: its slots are shared by every receiver (sockets are capped per receiver). */
type Lane = 'webhooks';
const LANES: readonly Lane[] = ['webhooks'];

/** The store notification channel that wakes the dispatchers of other processes (PostgreSQL LISTEN/NOTIFY). */
export const WEBHOOK_WAKE = 'herald_webhooks';

// The `last_error` of a delivery whose account has no webhook URL any more when its turn comes.
export const NO_WEBHOOK_URL = 'no webhook URL';
// The reason kept with a disabled endpoint, and told to the account (GET /v1/webhooks).
export const GONE_REASON = 'the endpoint answered 410 Gone';
// Said after the receiver's answer in the delivery log when a 410 disables the endpoint.
const DISABLED_NOTE = 'webhooks disabled until the settings are saved again';
// What of a receiver's non-2xx answer is kept with the attempt, after the status.
const EXCERPT_CHARS = 200;

/**
 * The webhook queue on the lease loop (queue/lease-loop.ts, where the modes are
 * described), the outbox worker's twin for events. Each step is one unit of work
 * (record.ts recordAndClaim): the outcomes of the posts that finished since the last
 * step are written, then due deliveries are leased into the free slots, so a busy
 * dispatcher pays one durable commit per step, not per event (on SQLite the group
 * committer folds it into the commit of events being recorded). Each leased delivery
 * is posted, signed with the account's current secret(s), to its current URL; what
 * follows from the answer is retry-policy.ts's table. A slot is free again as soon as
 * the answer is in; the lease holds until the next step writes the outcome.
 */
export class WebhookDispatcher extends LeaseLoop<Lane, Job> {
  constructor(deps: DispatcherDeps, options: DispatcherOptions) {
    super(new WebhookQueue(deps, options), ...loopSettings(options, deps));
  }
}

/** What the loop asks of the webhook queue: a step (outcomes written, deliveries leased), and one post. */
class WebhookQueue implements LeaseQueue<Lane, Job> {
  readonly name = 'webhook';
  readonly lanes = LANES;
  readonly #deps: DispatcherDeps;
  readonly #options: DispatcherOptions;
  readonly #signer = new WebhookSigner();
  readonly #agents: KeepAliveAgents;
  readonly #commit: Committer;
  /** Outcomes of finished posts, written by the next step; their deliveries stay leased until then. */
  #unrecorded: AttemptRecord[] = [];

  constructor(deps: DispatcherDeps, options: DispatcherOptions) {
    this.#deps = deps;
    this.#options = options;
    this.#agents = keepAliveAgents(options.maxSocketsPerOrigin);
    this.#commit = deps.commit ?? transactionPerWork(deps.db);
  }

  releaseAllLeases(): Promise<number> {
    return releaseAllDeliveryLeases(this.#deps.db);
  }

  claim(_lane: Lane, limit: number): Promise<Job[]> {
    return this.#step(limit);
  }

  unwritten(): number {
    return this.#unrecorded.length;
  }

  /** Hangs up every kept-alive connection (close(), after the posts in flight). */
  close(): void {
    this.#agents.destroy();
  }

  /** One unit of work: the outcomes waiting are written, then up to `limit` due deliveries leased (0: none). */
  async #step(limit: number): Promise<Job[]> {
    const records = this.#unrecorded.splice(0);
    if (records.length === 0 && limit === 0) return [];
    const { owner, leaseMs } = this.#options;
    const now = this.#deps.clock();
    let recorded: Set<string>;
    let claimed: ClaimedDelivery[];
    try {
      ({ recorded, claimed } = await recordAndClaim(this.#commit, this.#deps.capabilities, {
        owner, now, newId: this.#deps.newId, records, ...(limit > 0 ? { claim: { leaseMs, limit } } : {}),
      }));
    } catch (error) {
      // The store is down: the outcomes wait for the next step (the loop backs off and
      // tries again); those whose leases run out meanwhile are posted again (same webhook-id).
      this.#unrecorded.unshift(...records);
      throw error;
    }
    const lost = records.length - recorded.size;
    if (lost > 0) this.#deps.logger.warn({ lost }, 'webhook leases expired before their outcome was recorded; those deliveries are posted again');
    for (const record of records) {
      const held = recorded.has(record.deliveryId);
      this.#deps.metrics?.webhookObserved(!held ? 'lease-lost' : record.next.status === 'pending' ? 'retry' : record.next.status);
      if (held && record.next.status === 'succeeded') this.#deps.metrics?.webhookDelivered((record.at + record.durationMs - record.eventAt) / 1000);
      if (held) this.#logOutcome(record);
    }
    if (claimed.length === 0) return [];
    const targets = await this.#targets(claimed, now);
    return claimed.map((delivery) => ({ delivery, target: targets.get(delivery.endpointId ?? delivery.accountId) ?? NO_TARGET }));
  }

  /**
   * The endpoints' URLs and secrets as they are now, by endpoint id (the account's id for
   * its first endpoint, the accounts row): a changed URL or a rotation applies to the next post.
   */
  async #targets(claimed: readonly ClaimedDelivery[], now: number): Promise<Map<string, Target>> {
    const firsts = claimed.filter((d) => d.endpointId === null).map((d) => d.accountId);
    const others = claimed.flatMap((d) => (d.endpointId === null ? [] : [d.endpointId]));
    const settings = await findWebhookSettingsOf(this.#deps.db, [...new Set(firsts)]);
    const endpoints = await findWebhookEndpointsById(this.#deps.db, [...new Set(others)]);
    return new Map([
      ...[...settings.values()].map((s): [string, Target] => [s.accountId, targetOf(s, now)]),
      ...[...endpoints.values()].map((e): [string, Target] => [e.id, targetOf(e, now)]),
    ]);
  }

  /** Posts one delivery; its outcome waits for the next step. Never rejects. */
  async deliver({ delivery, target }: Job): Promise<void> {
    this.#unrecorded.push(await this.#attempt(delivery, target));
  }

  async #attempt(delivery: ClaimedDelivery, target: Target): Promise<AttemptRecord> {
    const base = { deliveryId: delivery.id, accountId: delivery.accountId, endpointId: delivery.endpointId, event: delivery.type, eventAt: delivery.createdAt };
    const unposted = target.url === null ? NO_WEBHOOK_URL : target.disabledReason !== null ? `webhooks disabled: ${target.disabledReason}` : undefined;
    if (target.url === null || unposted !== undefined) {
      // Nothing to post to: failed at once, kept in the log, replayable once the settings are saved.
      return { ...base, attempts: delivery.attempts, at: this.#deps.clock(), url: null, statusCode: null, error: unposted ?? NO_WEBHOOK_URL, durationMs: 0, next: { status: 'failed' } };
    }
    const attempt = delivery.attempts + 1;
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
    const gone = verdictOf(outcome) === 'disable';
    const said = outcome.answered ? answerError(outcome.status, outcome.excerpt) : outcome.reason;
    return {
      ...base, attempts: attempt, at, url: target.url, durationMs,
      statusCode: outcome.answered ? outcome.status : null,
      error: verdictOf(outcome) === 'done' ? null : gone ? `${said}; ${DISABLED_NOTE}` : said,
      next: nextStepAfter(outcome, attempt, now, delivery.createdAt),
      ...(gone ? { disable: GONE_REASON } : {}),
    };
  }

  /** One info line per recorded outcome: where (the host only: a URL may carry a token), what, how it went. */
  #logOutcome(record: AttemptRecord): void {
    let host: string | null = null;
    if (record.url !== null && URL.canParse(record.url)) host = new URL(record.url).host;
    this.#deps.logger.info({
      delivery: record.deliveryId, account: record.accountId, host, event: record.event, status: record.next.status, statusCode: record.statusCode, attempt: record.attempts,
      ...(record.next.status === 'pending' ? { nextAttemptAt: new Date(record.next.nextAttemptAt).toISOString() } : {}),
      ...(record.error === null ? {} : { error: record.error }),
    }, 'webhook delivery outcome');
  }
}

const NO_TARGET: Target = { url: null, secrets: [], disabledReason: null };

/** The first endpoint's settings (the accounts row) or another endpoint's row: the same fields. */
function targetOf(settings: Pick<WebhookSettings, 'url' | 'secret' | 'previousSecret' | 'previousSecretUntil' | 'disabled'>, now: number): Target {
  const secrets: string[] = [];
  if (settings.secret !== null) secrets.push(settings.secret);
  if (settings.previousSecret !== null && settings.previousSecretUntil !== null && now < settings.previousSecretUntil) secrets.push(settings.previousSecret);
  return { url: settings.url, secrets, disabledReason: settings.disabled?.reason ?? null };
}

function answerError(status: number, excerpt: string): string {
  // Printable text only: the log and the API show it as is.
  const text = excerpt.replace(/[\p{Cc}\p{Cf}]+/gu, ' ').trim().slice(0, EXCERPT_CHARS);
  return text === '' ? `HTTP ${status}` : `HTTP ${status}: ${text}`;
}
