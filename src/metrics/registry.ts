import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Channel } from '../domain/account.ts';

// What herald counts, in the Prometheus text format (docs/operations.md lists every
// metric). One registry per service, not prom-client's global one, so tests and
// benchmarks that start several services in one process count each apart.

/** Where an unexpected error (a bug, not an outcome) was caught. */
export type ErrorSource = 'request' | 'outbox' | 'webhooks' | 'imports' | 'inbound';

/** A background job that can be quarantined: taken up too many times without finishing. */
export type QuarantinedJob = 'imports';

/** How a send request ended: accepted (queued) or refused with a 4xx/5xx. */
export type AcceptOutcome = 'accepted' | 'refused';

/** What the outbox did with one delivery attempt (outbox/complete.ts Resolution). */
export type DeliveryOutcome = 'sent' | 'retry' | 'failed' | 'lease-lost';

/** Why Node's HTTP server gave up on a client's request before a route saw it. */
export type ClientErrorKind = 'timeout' | 'header-overflow' | 'malformed';

/** What one webhook delivery attempt came to. */
export type WebhookOutcome = 'succeeded' | 'retry' | 'failed' | 'lease-lost';

/** The outbox (per channel) and the webhook backlog as the store holds them at a scrape. */
export interface QueueSnapshot {
  readonly outbox: readonly { readonly channel: Channel; readonly depth: number; readonly oldestAgeSeconds: number }[];
  readonly webhooks: { readonly backlog: number; readonly oldestAgeSeconds: number };
}

export interface Metrics {
  /** The Prometheus text of every metric; queue gauges are read from the store now. */
  scrape(): Promise<string>;
  readonly contentType: string;
  /** An exception that reached a route, a loop or a listener: every call is a bug to look at. */
  unexpectedError(source: ErrorSource): void;
  /** Messages (one per recipient) committed to the outbox by one accepted request. */
  messagesAccepted(channel: Channel, count: number): void;
  /** One send request's time from routing to answer. */
  acceptObserved(channel: Channel, outcome: AcceptOutcome, seconds: number): void;
  deliveryObserved(channel: Channel, outcome: DeliveryOutcome): void;
  webhookObserved(outcome: WebhookOutcome): void;
  /** A request answered on the connection (time-out, headers too large, not HTTP): http/client-connections.ts. */
  clientErrorObserved(kind: ClientErrorKind): void;
  /** Units of work in one group-commit transaction (SQLite). */
  commitBatchObserved(size: number): void;
  /** A job's unit of work ended failed after too many attempts (a contact import that kept killing or failing its runner). */
  jobQuarantined(job: QuarantinedJob): void;
  /** Reads the queues at each scrape; set once by whoever owns the store. */
  readQueuesWith(read: () => Promise<QueueSnapshot>): void;
}

const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];
// Accepts take about a millisecond on an idle SQLite store; a group commit's fsync, a few.
const ACCEPT_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/**
 * A fresh registry with herald's metrics and prom-client's process metrics (CPU,
 * memory, file descriptors, GC, and the event-loop delay: nodejs_eventloop_lag_*,
 * percentiles since the previous scrape).
 */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const unexpectedErrors = new Counter({
    name: 'herald_unexpected_errors_total', help: 'Exceptions that reached a route, a delivery loop or a listener (bugs; the log has each with its stack).',
    labelNames: ['source'] as const, registers,
  });
  const accepted = new Counter({
    name: 'herald_messages_accepted_total', help: 'Messages (one per recipient) accepted into the outbox.', labelNames: ['channel'] as const, registers,
  });
  const acceptDuration = new Histogram({
    name: 'herald_accept_duration_seconds', help: 'Time to answer a send request, by channel and outcome (accepted or refused).',
    labelNames: ['channel', 'outcome'] as const, buckets: ACCEPT_BUCKETS, registers,
  });
  const deliveries = new Counter({
    name: 'herald_delivery_attempts_total', help: 'Delivery attempts by channel and outcome: sent (the peer took it), retry, failed (final), lease-lost.',
    labelNames: ['channel', 'outcome'] as const, registers,
  });
  const webhookAttempts = new Counter({
    name: 'herald_webhook_attempts_total', help: 'Webhook delivery attempts by outcome: succeeded, retry, failed (final), lease-lost.',
    labelNames: ['outcome'] as const, registers,
  });
  const clientErrors = new Counter({
    name: 'herald_http_client_errors_total', help: 'Requests the HTTP server gave up on before routing: timeout (headers or whole request too slow), header-overflow, malformed.',
    labelNames: ['kind'] as const, registers,
  });
  const quarantined = new Counter({
    name: 'herald_jobs_quarantined_total', help: 'Units of background work ended failed after too many attempts in a row (each is logged with its id), by job.',
    labelNames: ['job'] as const, registers,
  });
  const commitBatch = new Histogram({
    name: 'herald_group_commit_batch_size', help: 'Units of work per group-commit transaction (one durable commit each).', buckets: BATCH_BUCKETS, registers,
  });

  let readQueues: (() => Promise<QueueSnapshot>) | undefined;
  let snapshot: Promise<QueueSnapshot | undefined> | undefined;
  // The four queue gauges come from one read of the store per scrape: the first
  // gauge collected starts it, the others reuse it, and scrape() forgets it after.
  const queues = (): Promise<QueueSnapshot | undefined> => (snapshot ??= readQueues?.() ?? Promise.resolve(undefined));
  const outboxDepth = new Gauge({
    name: 'herald_outbox_depth', help: 'Messages waiting in the outbox (due, scheduled for a retry, or being delivered), by channel.', labelNames: ['channel'] as const, registers,
    async collect() {
      const queued = await queues();
      this.reset();
      for (const row of queued?.outbox ?? []) this.set({ channel: row.channel }, row.depth);
    },
  });
  const outboxAge = new Gauge({
    name: 'herald_outbox_oldest_age_seconds', help: 'Age of the oldest message in the outbox, by channel.', labelNames: ['channel'] as const, registers,
    async collect() {
      const queued = await queues();
      this.reset();
      for (const row of queued?.outbox ?? []) this.set({ channel: row.channel }, row.oldestAgeSeconds);
    },
  });
  const webhookBacklog = new Gauge({
    name: 'herald_webhook_backlog', help: 'Webhook deliveries pending (due or scheduled for a retry).', registers,
    async collect() {
      const queued = await queues();
      if (queued !== undefined) this.set(queued.webhooks.backlog);
    },
  });
  const webhookAge = new Gauge({
    name: 'herald_webhook_oldest_age_seconds', help: 'Age of the oldest pending webhook delivery.', registers,
    async collect() {
      const queued = await queues();
      if (queued !== undefined) this.set(queued.webhooks.oldestAgeSeconds);
    },
  });
  void [outboxDepth, outboxAge, webhookBacklog, webhookAge];

  return {
    contentType: registry.contentType,
    async scrape() {
      try {
        return await registry.metrics();
      } finally {
        snapshot = undefined;
      }
    },
    unexpectedError: (source) => unexpectedErrors.inc({ source }),
    messagesAccepted: (channel, count) => accepted.inc({ channel }, count),
    acceptObserved: (channel, outcome, seconds) => acceptDuration.observe({ channel, outcome }, seconds),
    deliveryObserved: (channel, outcome) => deliveries.inc({ channel, outcome }),
    webhookObserved: (outcome) => webhookAttempts.inc({ outcome }),
    clientErrorObserved: (kind) => clientErrors.inc({ kind }),
    commitBatchObserved: (size) => commitBatch.observe(size),
    jobQuarantined: (job) => quarantined.inc({ job }),
    readQueuesWith(read) {
      readQueues = read;
    },
  };
}
