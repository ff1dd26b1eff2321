import { monitorEventLoopDelay } from 'node:perf_hooks';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { CHANNELS, type Channel } from '../domain/account.ts';
import { EVENT_TYPES, type RecordedPublicEvent } from '../domain/event-catalogue.ts';

// What herald counts, in the Prometheus text format (docs/operations.md lists every
// metric). One registry per service, not prom-client's global one, so tests and
// benchmarks that start several services in one process count each apart.

/** Where an unexpected error (a bug, not an outcome) was caught. */
export const ERROR_SOURCES = ['request', 'outbox', 'webhooks', 'imports', 'inbound', 'submission'] as const;
export type ErrorSource = (typeof ERROR_SOURCES)[number];

/** A background job that can be quarantined: taken up too many times without finishing. */
export const QUARANTINED_JOBS = ['imports'] as const;
export type QuarantinedJob = (typeof QUARANTINED_JOBS)[number];

/** How a send request ended, from its status: accepted (2xx), refused (4xx: the caller's), failed (5xx: herald's or its store's). */
export type AcceptOutcome = 'accepted' | 'refused' | 'failed';

export function acceptOutcomeOf(status: number): AcceptOutcome {
  return status < 400 ? 'accepted' : status < 500 ? 'refused' : 'failed';
}

/** What the outbox did with one delivery attempt (outbox/complete.ts Resolution). */
export const DELIVERY_OUTCOMES = ['sent', 'retry', 'failed', 'lease-lost'] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

/** Why Node's HTTP server gave up on a client's request before a route saw it. */
export const CLIENT_ERROR_KINDS = ['timeout', 'header-overflow', 'malformed'] as const;
export type ClientErrorKind = (typeof CLIENT_ERROR_KINDS)[number];

/** Why an inbound report naming one of our messages was not believed (app/record-inbound-report.ts). */
export const FORGED_REPORT_REASONS = ['wrong-tag', 'untagged', 'no-verp'] as const;
/** What an SMTP submission connection or message came to (src/submission/reply-table.ts names each refusal). */
export const SUBMISSION_OUTCOMES = [
  'accepted', 'replayed', 'auth-failed', 'auth-braked', 'ip-not-allowed', 'scope', 'inactive', 'rate-limited', 'domain', 'no-messages-left',
  'too-many-recipients', 'bad-address', 'too-large', 'invalid-message', 'idempotency', 'unavailable', 'error',
] as const;
export type SubmissionOutcome = (typeof SUBMISSION_OUTCOMES)[number];
export type ForgedReportReason = (typeof FORGED_REPORT_REASONS)[number];

/** What became of a message a person sent (app/receive-inbound.ts). */
export const INBOUND_OUTCOMES = ['routed', 'unrouted', 'duplicate', 'throttled'] as const;
export type InboundOutcome = (typeof INBOUND_OUTCOMES)[number];

/** What one webhook delivery attempt came to. */
export const WEBHOOK_OUTCOMES = ['succeeded', 'retry', 'failed', 'lease-lost'] as const;
export type WebhookOutcome = (typeof WEBHOOK_OUTCOMES)[number];

/** What did not answer when a request was refused with 503: the database, or Redis with HERALD_REDIS_FAILURE=closed. */
export const UNAVAILABLE_STORES = ['database', 'redis'] as const;
export type UnavailableStore = (typeof UNAVAILABLE_STORES)[number];
/** What came of an invitation (app/users.ts). */
export const INVITATION_OUTCOMES = ['emailed', 'not-emailed', 'throttled'] as const;
export type InvitationOutcome = (typeof INVITATION_OUTCOMES)[number];

/** The outbox (per channel) and the webhook backlog as the store holds them at a scrape. */
export interface QueueSnapshot {
  readonly outbox: readonly { readonly channel: Channel; readonly depth: number; readonly oldestAgeSeconds: number }[];
  readonly webhooks: { readonly backlog: number; readonly oldestAgeSeconds: number };
}

/** A loop of the process as its last-turn gauge reads it (queue/loop-readiness.ts WatchedLoop). */
export interface TurningLoop {
  /** `outbox delivery loop`, …: the label is this without ` loop`, spaces as dashes (`outbox-delivery`). */
  readonly what: string;
  lastTurnAt(): number | undefined;
}

export interface Metrics {
  /** The Prometheus text of every metric; queue gauges are read from the store now. */
  scrape(): Promise<string>;
  readonly contentType: string;
  /** An exception that reached a route, a loop or a listener: every call is a bug to look at. */
  unexpectedError(source: ErrorSource): void;
  /** Messages (one per recipient) committed to the outbox by one accepted request. */
  messagesAccepted(channel: Channel, count: number): void;
  /** One send request's time from arrival to answer, whatever the answer (its HTTP status). */
  acceptObserved(channel: Channel, status: number, seconds: number): void;
  /** Public events whose transaction committed (store/event-tally.ts): counted, and accept-to-sent/delivered observed. */
  eventsRecorded(events: readonly RecordedPublicEvent[]): void;
  /** A webhook delivery that succeeded, this long after its event. */
  webhookDelivered(seconds: number): void;
  /** A TLS certificate a listener loaded, and when it expires (epoch ms). */
  tlsCertificateLoaded(listener: string, expiresAt: number): void;
  /** The loops this process runs, whose last turn's age is read at each scrape. */
  watchLoops(loops: readonly TurningLoop[], clock: () => number): void;
  /** Reads when the oldest DKIM key of a verified sender domain was made (epoch ms; undefined: none), at each scrape. */
  readDkimKeysWith(read: () => Promise<number | undefined>): void;
  deliveryObserved(channel: Channel, outcome: DeliveryOutcome): void;
  webhookObserved(outcome: WebhookOutcome): void;
  /** A request answered on the connection (time-out, headers too large, not HTTP): http/client-connections.ts. */
  clientErrorObserved(kind: ClientErrorKind): void;
  /** A request answered 503 because `store` did not answer (an outage, not a bug). */
  storeUnavailable(store: UnavailableStore): void;
  /** An inbound report that named one of our messages without its VERP tag: kept, nothing applied. */
  forgedReportObserved(reason: ForgedReportReason): void;
  /** An SMTP submission connection opened (src/submission/). */
  submissionConnected(): void;
  /** An SMTP submission outcome: a message accepted, or a refusal by its reason. */
  submissionObserved(outcome: SubmissionOutcome): void;
  /** A message a person sent: routed to an account, kept unrouted for the operator, a peer's resend stored before, or throttled (past the per-sender bound: the peer sends it again later). */
  inboundObserved(channel: Channel, outcome: InboundOutcome): void;
  /** Units of work in one group-commit transaction (SQLite). */
  commitBatchObserved(size: number): void;
  /** A guess refused before any check (http/plugins/attempt-throttle.ts), by the counter that refused it. */
  attemptRefused(counter: string): void;
  /** The throttle's counters, so each is exported from zero before its first refusal. */
  attemptCountersKnown(counters: readonly string[]): void;
  /** An invitation made (its email queued, or none: no sender) or refused by the throttle. */
  invitationObserved(outcome: InvitationOutcome): void;
  /** Stops sampling the event loop (the service's close). */
  close(): void;
  /** A job's unit of work ended failed after too many attempts (a contact import that kept killing or failing its runner). */
  jobQuarantined(job: QuarantinedJob): void;
  /** Reads the queues at each scrape; set once by whoever owns the store. */
  readQueuesWith(read: () => Promise<QueueSnapshot>): void;
}

const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];
// From an accept to a peer's answer: a second on loopback, minutes for a retried email, hours for a late receipt.
const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 14400, 86400];
/** How often the event loop's delay is sampled (monitorEventLoopDelay), taken off each sample: an idle loop reads 0. */
const EVENT_LOOP_RESOLUTION_MS = 10;
/**
 * prom-client's default metrics herald does not expose: gauges named `_total` (promtool
 * refuses them; nodejs_active_handles, nodejs_active_requests and nodejs_active_resources
 * say the same), and its event-loop lag, which it measures at the scrape itself (the
 * plain gauge, 0 on an idle loop) or with its own 10 ms timer left in every sample (the
 * percentiles): herald_event_loop_delay_* replace them.
 */
const DROPPED_DEFAULTS = [
  'nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total',
  'nodejs_eventloop_lag_seconds', 'nodejs_eventloop_lag_min_seconds', 'nodejs_eventloop_lag_max_seconds', 'nodejs_eventloop_lag_mean_seconds',
  'nodejs_eventloop_lag_stddev_seconds', 'nodejs_eventloop_lag_p50_seconds', 'nodejs_eventloop_lag_p90_seconds', 'nodejs_eventloop_lag_p99_seconds',
];
// Accepts take about a millisecond on an idle SQLite store; a group commit's fsync, a few.
const ACCEPT_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/**
 * A fresh registry with herald's metrics and prom-client's process metrics (CPU,
 * memory, file descriptors, GC; DROPPED_DEFAULTS aside).
 */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const name of DROPPED_DEFAULTS) registry.removeSingleMetric(name);
  const registers = [registry];
  // Every label value of a counter is exported from zero: a rate, or `increase(…) > 0` on the first error ever, needs a sample before it.
  const counterOf = <L extends string>(name: string, help: string, label: L, values: readonly string[]): Counter<L> => {
    const counter = new Counter<L>({ name, help, labelNames: [label], registers });
    for (const value of values) counter.inc({ [label]: value } as Partial<Record<L, string>>, 0);
    return counter;
  };

  const unexpectedErrors = counterOf('herald_unexpected_errors_total', 'Exceptions that reached a route, a delivery loop or a listener (bugs; the log has each with its stack).', 'source', ERROR_SOURCES);
  const accepted = counterOf('herald_messages_accepted_total', 'Messages (one per recipient) accepted into the outbox.', 'channel', CHANNELS);
  const acceptDuration = new Histogram({
    name: 'herald_accept_duration_seconds', help: 'Time to answer a send request, every answer: by channel, outcome (accepted 2xx, refused 4xx, failed 5xx) and status.',
    labelNames: ['channel', 'outcome', 'status'] as const, buckets: ACCEPT_BUCKETS, registers,
  });
  const events = new Counter({
    name: 'herald_events_total', help: 'Public events recorded (docs/events.md), by channel and type: worker outcomes, receipts, DSNs, complaints, engagement, simulator reports.',
    labelNames: ['channel', 'type'] as const, registers,
  });
  for (const type of EVENT_TYPES) events.inc({ channel: type.slice(0, type.indexOf('.')), type }, 0);
  const acceptToSent = new Histogram({
    name: 'herald_accept_to_sent_seconds', help: 'From a message\'s acceptance to its sent event (the peer took it), by channel.',
    labelNames: ['channel'] as const, buckets: LATENCY_BUCKETS, registers,
  });
  const acceptToDelivered = new Histogram({
    name: 'herald_accept_to_delivered_seconds', help: 'From a message\'s acceptance to its delivered event (an MX 250, a receipt, a DSN, a status webhook), by channel.',
    labelNames: ['channel'] as const, buckets: LATENCY_BUCKETS, registers,
  });
  const webhookDelivery = new Histogram({
    name: 'herald_webhook_delivery_seconds', help: 'From an event to the successful delivery of its webhook (retries included).', buckets: LATENCY_BUCKETS, registers,
  });
  const certificateExpiry = new Gauge({
    name: 'herald_tls_certificate_expiry_timestamp_seconds', help: 'When the TLS certificate a listener loaded expires (Unix time), by listener.',
    labelNames: ['listener'] as const, registers,
  });
  let readDkimKeys: (() => Promise<number | undefined>) | undefined;
  const dkimOldest = new Gauge({
    name: 'herald_dkim_key_oldest_created_timestamp_seconds', help: 'When the oldest DKIM key of a verified sender domain was made (Unix time, the month of its selector); absent without one.',
    registers,
    async collect() {
      // Like the queue gauges: a store that does not answer leaves this gauge out, not the scrape.
      const made = await readDkimKeys?.().catch(() => undefined);
      this.reset();
      if (made !== undefined) this.set(made / 1000);
    },
  });
  let loops: { readonly watched: readonly TurningLoop[]; readonly clock: () => number } | undefined;
  const loopAge = new Gauge({
    name: 'herald_loop_last_turn_age_seconds', help: 'Seconds since each background loop of this process began a turn (a loop turns at least once per poll), by loop.',
    labelNames: ['loop'] as const, registers,
    collect() {
      this.reset();
      if (loops === undefined) return;
      const now = loops.clock();
      for (const loop of loops.watched) {
        const last = loop.lastTurnAt();
        if (last !== undefined) this.set({ loop: loop.what.replace(/ loop$/, '').replaceAll(' ', '-') }, Math.max(0, (now - last) / 1000));
      }
    },
  });
  // Sampled every 10 ms between scrapes; each scrape reads what was seen since the previous one.
  const delay = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS });
  delay.enable();
  const delaySeconds = (nanoseconds: number): number => (delay.count === 0 ? 0 : Math.max(0, nanoseconds / 1e9 - EVENT_LOOP_RESOLUTION_MS / 1000));
  const delayGauge = (name: string, help: string, read: () => number): Gauge => new Gauge({ name, help, registers, collect() { this.set(delaySeconds(read())); } });
  delayGauge('herald_event_loop_delay_p50_seconds', 'Median event-loop delay since the previous scrape.', () => delay.percentile(50));
  delayGauge('herald_event_loop_delay_p99_seconds', '99th percentile of the event-loop delay since the previous scrape.', () => delay.percentile(99));
  delayGauge('herald_event_loop_delay_max_seconds', 'Longest event-loop delay since the previous scrape.', () => delay.max);
  delayGauge('herald_event_loop_delay_mean_seconds', 'Mean event-loop delay since the previous scrape.', () => delay.mean);
  const deliveries = new Counter({
    name: 'herald_delivery_attempts_total', help: 'Delivery attempts by channel and outcome: sent (the peer took it), retry, failed (final), lease-lost.',
    labelNames: ['channel', 'outcome'] as const, registers,
  });
  for (const channel of CHANNELS) for (const outcome of DELIVERY_OUTCOMES) deliveries.inc({ channel, outcome }, 0);
  const webhookAttempts = counterOf('herald_webhook_attempts_total', 'Webhook delivery attempts by outcome: succeeded, retry, failed (final), lease-lost.', 'outcome', WEBHOOK_OUTCOMES);
  const clientErrors = counterOf(
    'herald_http_client_errors_total', 'Requests the HTTP server gave up on before routing: timeout (headers or whole request too slow), header-overflow, malformed.', 'kind', CLIENT_ERROR_KINDS,
  );
  const quarantined = counterOf('herald_jobs_quarantined_total', 'Units of background work ended failed after too many attempts in a row (each is logged with its id), by job.', 'job', QUARANTINED_JOBS);
  const unavailable = counterOf('herald_store_unavailable_total', 'Requests answered 503 because the store did not answer: database, or redis (HERALD_REDIS_FAILURE=closed).', 'store', UNAVAILABLE_STORES);
  const forgedReports = counterOf(
    'herald_inbound_reports_forged_total', 'Inbound reports (DSN, ARF) naming one of our messages without its VERP tag: kept, nothing applied.', 'reason', FORGED_REPORT_REASONS,
  );
  const submissionConnections = new Counter({ name: 'herald_submission_connections_total', help: 'SMTP submission connections opened.', registers });
  const submissions = counterOf(
    'herald_submission_outcomes_total', 'SMTP submission outcomes: messages accepted (or replayed by idempotency key), AUTH failures and refusals by reason (docs/smtp-submission.md).', 'outcome', SUBMISSION_OUTCOMES,
  );
  const inbound = new Counter({
    name: 'herald_inbound_messages_total', help: 'Messages people sent (MO SMS, WhatsApp, email to receiving domains), by channel and outcome: routed, unrouted (kept for the operator), duplicate (a resend), throttled (past HERALD_INBOUND_PER_SENDER_PER_MINUTE, asked to come back later).',
    labelNames: ['channel', 'outcome'], registers,
  });
  for (const channel of CHANNELS) for (const outcome of INBOUND_OUTCOMES) inbound.inc({ channel, outcome }, 0);
  // The throttle's counters are known later (attemptCountersKnown).
  const attemptsRefused = counterOf(
    'herald_attempts_refused_total', 'Guesses refused before any check (sign-in, two-factor codes, current password, admin token, reset, invitations), by counter.', 'counter', [],
  );
  const invitations = counterOf('herald_invitations_total', 'Invitations: emailed, not-emailed (herald has no sender), throttled (refused with 429).', 'outcome', INVITATION_OUTCOMES);
  const commitBatch = new Histogram({
    name: 'herald_group_commit_batch_size', help: 'Units of work per group-commit transaction (one durable commit each).', buckets: BATCH_BUCKETS, registers,
  });

  let readQueues: (() => Promise<QueueSnapshot>) | undefined;
  let snapshot: Promise<QueueSnapshot | undefined> | undefined;
  // The four queue gauges come from one read of the store per scrape: the first
  // gauge collected starts it, the others reuse it, and scrape() forgets it after.
  // A store that does not answer leaves the queue gauges out of that scrape, not the whole
  // scrape out: the outage's own counters (herald_store_unavailable_total) must be read.
  const queues = (): Promise<QueueSnapshot | undefined> => (snapshot ??= readQueues?.().catch(() => undefined) ?? Promise.resolve(undefined));
  type OutboxRow = QueueSnapshot['outbox'][number];
  const outboxGauge = (name: string, help: string, read: (row: OutboxRow) => number): Gauge => new Gauge({
    name, help, labelNames: ['channel'] as const, registers,
    async collect() {
      const queued = await queues();
      this.reset();
      for (const row of queued?.outbox ?? []) this.set({ channel: row.channel }, read(row));
    },
  });
  const webhookGauge = (name: string, help: string, read: (webhooks: QueueSnapshot['webhooks']) => number): Gauge => new Gauge({
    name, help, registers,
    async collect() {
      const queued = await queues();
      if (queued !== undefined) this.set(read(queued.webhooks));
    },
  });
  outboxGauge('herald_outbox_depth', 'Messages waiting in the outbox (due, scheduled for a retry, or being delivered), by channel.', (row) => row.depth);
  outboxGauge('herald_outbox_oldest_age_seconds', 'Age of the oldest message in the outbox, by channel.', (row) => row.oldestAgeSeconds);
  webhookGauge('herald_webhook_backlog', 'Webhook deliveries pending (due or scheduled for a retry).', (webhooks) => webhooks.backlog);
  webhookGauge('herald_webhook_oldest_age_seconds', 'Age of the oldest pending webhook delivery.', (webhooks) => webhooks.oldestAgeSeconds);
  void [dkimOldest, loopAge];

  return {
    contentType: registry.contentType,
    async scrape() {
      try {
        return await registry.metrics();
      } finally {
        snapshot = undefined;
        delay.reset();
      }
    },
    unexpectedError: (source) => unexpectedErrors.inc({ source }),
    messagesAccepted: (channel, count) => accepted.inc({ channel }, count),
    acceptObserved: (channel, status, seconds) => acceptDuration.observe({ channel, outcome: acceptOutcomeOf(status), status: String(status) }, seconds),
    eventsRecorded(recorded) {
      for (const event of recorded) {
        events.inc({ channel: event.channel, type: event.type });
        const sinceAccept = Math.max(0, (event.at - event.acceptedAt) / 1000);
        if (event.type.endsWith('.sent')) acceptToSent.observe({ channel: event.channel }, sinceAccept);
        else if (event.type.endsWith('.delivered')) acceptToDelivered.observe({ channel: event.channel }, sinceAccept);
      }
    },
    webhookDelivered: (seconds) => webhookDelivery.observe(Math.max(0, seconds)),
    tlsCertificateLoaded: (listener, expiresAt) => certificateExpiry.set({ listener }, expiresAt / 1000),
    watchLoops(watched, clock) {
      loops = { watched, clock };
    },
    readDkimKeysWith(read) {
      readDkimKeys = read;
    },
    close: () => delay.disable(),
    deliveryObserved: (channel, outcome) => deliveries.inc({ channel, outcome }),
    webhookObserved: (outcome) => webhookAttempts.inc({ outcome }),
    clientErrorObserved: (kind) => clientErrors.inc({ kind }),
    storeUnavailable: (store) => unavailable.inc({ store }),
    forgedReportObserved: (reason) => forgedReports.inc({ reason }),
    submissionConnected: () => submissionConnections.inc(),
    submissionObserved: (outcome) => submissions.inc({ outcome }),
    inboundObserved: (channel, outcome) => inbound.inc({ channel, outcome }),
    commitBatchObserved: (size) => commitBatch.observe(size),
    attemptRefused: (counter) => attemptsRefused.inc({ counter }),
    attemptCountersKnown(counters) {
      for (const counter of counters) attemptsRefused.inc({ counter }, 0);
    },
    invitationObserved: (outcome) => invitations.inc({ outcome }),
    jobQuarantined: (job) => quarantined.inc({ job }),
    readQueuesWith(read) {
      readQueues = read;
    },
  };
}
