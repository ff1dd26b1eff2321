import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { prepareAdminToken, type AdminTokenCheck } from './app/admin-token.ts';
import { KeyUseThrottle, newVerifiedKeyCache } from './app/api-keys.ts';
import { newReadCaches } from './app/read-caches.ts';
import { HEARTBEAT_MS, ProcessHeartbeat } from './app/process-heartbeat.ts';
import { DELIVERY_HOLD_WATCH_MS, DeliveryHoldWatch, holdDelivery } from './app/delivery-hold.ts';
import { DEFAULT_RETENTION_OPTIONS, retentionTurn } from './app/retention-sweep.ts';
import { API_REQUEST_FLUSH_MS, API_REQUEST_PURGE_MS, ApiRequestLog, purgeOldApiRequests } from './app/api-request-log.ts';
import { LiveFeed, type LiveFeedOptions } from './app/live-feed.ts';
import { deliverOverdueSmsParts, SMS_REASSEMBLY_SWEEP_MS } from './app/receive-sms-part.ts';
import { submitQueuedWhatsappTemplates, WHATSAPP_TEMPLATE_SUBMIT_MS } from './app/submit-whatsapp-templates.ts';
import { FALLBACK_TURN_MS, releaseFallbackLegs, type FallbackScan } from './app/fallback-release.ts';
import { submitCloudApiTemplate, type TemplateToSubmit } from './channels/whatsapp/cloud-api-templates.ts';
import type { AuthDeps } from './app/sessions.ts';
import { LoadedSigningKey } from './app/certificate-signing-key.ts';
import { InboundSenderLimit } from './app/inbound-sender-limit.ts';
import { IdempotencyKeysInProcess } from './app/idempotency-keys-in-process.ts';
import { certificateIssuer } from './app/certificates.ts';
import { submissionEndpointOf } from './app/submission-endpoint.ts';
import { loadSigningSecret } from './app/signing-key.ts';
import { recordVerpTagsSince } from './app/verp-check.ts';
import { uuidv7Source } from './app/uuidv7-source.ts';
import { checkPostTarget } from './channels/guarded-fetch.ts';
import type { Config } from './config.ts';
import { CHANNELS } from './domain/account.ts';
import { templateEngineFor } from './domain/email-template.ts';
import { requestLimitsOf } from './domain/request-limits.ts';
import type { InboundListener } from './inbound/listener.ts';
import type { RunningSubmission } from './submission/configured-submission.ts';
import type { SubmissionEndpoint } from './domain/submission-endpoint.ts';
import { DEFAULT_DISPATCHER_OPTIONS, WEBHOOK_WAKE, WebhookDispatcher, type DispatcherOptions } from './queue/webhooks/dispatcher.ts';
import { buildApp } from './http/app.ts';
import { configuredRateLimiter, type AccountRateLimiter } from './http/plugins/rate-limit.ts';
import { attemptThrottle, DEFAULT_ATTEMPT_LIMITS, type AttemptLimits } from './http/plugins/attempt-throttle.ts';
import { RETRY_HORIZON_MS } from './queue/outbox/retry-policy.ts';
import { DEFAULT_WORKER_OPTIONS, OutboxWorker, type WorkerOptions } from './queue/outbox/worker.ts';
import { SimulatedReportQueue } from './queue/simulated-reports/simulated-report-queue.ts';
import { cloudApiMediaDeps, DEFAULT_INBOUND_MEDIA_OPTIONS, InboundMediaQueue } from './queue/inbound-media/inbound-media-queue.ts';
import { recordSimulatedStep } from './app/record-simulated-step.ts';
import { listenOrExplain, lockOrExplain, migrateOrExplain, openOrExplain } from './startup-errors.ts';
import { createLogger } from './logger.ts';
import { createMetrics, type Metrics } from './metrics/registry.ts';
import { openStore, type OpenedStore } from './store/dialect.ts';
import { isPostgresLockLoss } from './store/postgres/connection.ts';
import type { ServingLock } from './store/serving-lock.ts';
import { readQueueDepths } from './store/queue-depth.ts';
import { oldestDkimKeyCreatedAt } from './store/sender-domains.ts';
import { groupCommitter, type GroupCommitter } from './store/group-commit.ts';
import type { AppliedMigration } from './store/migrate.ts';
import { OUTBOX_WAKE } from './store/notify.ts';
import { DEFAULT_IMPORT_RUNNER_OPTIONS, IMPORTS_WAKE, ImportRunner, type ImportRunnerOptions } from './queue/imports/import-runner.ts';
import { CAMPAIGNS_WAKE, CampaignRunner, DEFAULT_CAMPAIGN_RUNNER_OPTIONS, type CampaignRunnerOptions } from './queue/campaigns/campaign-runner.ts';
import type { Role } from './domain/process-role.ts';
import { partsOf, runsLoops } from './roles.ts';
import { buildTransports } from './transports.ts';
import { stalledLoop, type WatchedLoop } from './queue/loop-readiness.ts';
import type { LeaseLoop } from './queue/lease-loop.ts';
import { repeatEvery, schedulePeriodic, type ScheduledJob } from './queue/periodic-job.ts';
import { jobsOf } from './queue/jobs.ts';

export interface ServiceOptions {
  /** What this process runs; default config.role. */
  readonly role?: Role;
  readonly logger?: Logger | false;
  readonly clock?: () => number;
  /** Runs the in-process delivery worker (default true). */
  readonly worker?: boolean;
  readonly workerOptions?: Partial<WorkerOptions>;
  /** The webhook dispatcher runs when the worker does; these override its defaults. */
  readonly webhookOptions?: Partial<DispatcherOptions>;
  readonly rateLimiter?: AccountRateLimiter;
  /** Runs the contact import runner where the role has one (default true; it is database work only, so tests keep it). */
  readonly imports?: boolean;
  readonly importOptions?: Partial<ImportRunnerOptions>;
  /** The live feed's bounds and poll (GET /v1/events/stream, app/live-feed.ts). */
  readonly liveFeedOptions?: Partial<LiveFeedOptions>;
  /** The counters that slow guesses (sign-in, codes, tokens, resets, invitations); tests lower them. */
  readonly attemptLimits?: Partial<AttemptLimits>;
  /** Overrides the campaign runner's defaults; it runs where the import runner does, started when the worker is. */
  readonly campaignOptions?: Partial<CampaignRunnerOptions>;
  /** The built web application served at /app (default web/dist of this tree). */
  readonly webRoot?: string;
  /** `herald serve --paused`: delivery is held in the store before any loop starts (app/delivery-hold.ts). */
  readonly paused?: boolean;
  /**
   * Set by `herald serve`: a process that runs loops on a SQLite file takes the store's
   * serving lock first (store/serving-lock.ts), so a second one exits 78 before it binds
   * a port or touches a lease. In-process services of tests leave it.
   */
  readonly servingLock?: boolean;
}

/** A process of any role: what runs depends on it (src/roles.ts). */
export interface RoleService {
  readonly role: Role;
  /** The whole API for `all` and `api`; only /healthz and /readyz for `worker`. */
  readonly http: FastifyInstance;
  /** Delivers the outbox; absent in an `api` process. */
  readonly worker: OutboxWorker | undefined;
  /** Posts the events to the accounts' webhook URLs (drain() in tests); absent in an `api` process. */
  readonly webhooks: WebhookDispatcher | undefined;
  /** Reads uploaded contact imports (drain() in tests); absent in an `api` process. */
  readonly imports: ImportRunner | undefined;
  /** Makes campaign messages (drain() in tests); absent in an `api` process. */
  readonly campaigns: CampaignRunner | undefined;
  /** Records the simulator recipients' later reports (docs/sandbox.md); absent in an `api` process. */
  readonly simulatedReports: SimulatedReportQueue | undefined;
  /** Fetches WhatsApp users' media from Meta (docs/inbound-whatsapp.md); absent in an `api` process and with the capture transport. */
  readonly inboundMedia: InboundMediaQueue | undefined;
  readonly store: OpenedStore;
  readonly deps: AuthDeps;
  readonly adminToken: AdminTokenCheck;
  /** The bound port of the inbound SMTP listener (bounces, complaints); undefined when it is off. */
  readonly inboundSmtpPort: number | undefined;
  /** Where SMTP submission listens, as bound (docs/smtp-submission.md); undefined when it is off or not yet bound. */
  readonly submission: SubmissionEndpoint | undefined;
  /** The process's metrics; main.ts serves them on HERALD_METRICS_PORT (src/metrics/server.ts). */
  readonly metrics: Metrics;
  /** The delivery hold as this process's loops see it; absent in an `api` process. */
  readonly deliveryHold: DeliveryHoldWatch | undefined;
  /** The account events' feed of open streams (GET /v1/events/stream); absent in a process without the API. */
  readonly liveFeed: LiveFeed | undefined;
  /** This process's buffer of each key's requests (flush() in tests: the job writes it a second at a time). */
  readonly apiRequestLog: ApiRequestLog;
  close(): Promise<void>;
}

/**
 * A process built but not yet running: nothing bound, no loop started. `herald serve`
 * binds every port it has (main.ts), then starts; tests get it started (createRoleService).
 */
export interface PreparedRoleService extends RoleService {
  /**
   * Binds the SMTP ports this role has: the inbound listener (HERALD_INBOUND_SMTP_PORT) and,
   * in a process that serves the API, submission (HERALD_SUBMISSION_PORT, HERALD_SUBMISSIONS_PORT);
   * a ConfigError when one cannot be bound.
   */
  listenInbound(): Promise<void>;
  /** Writes the heartbeat row, then starts the loops and background jobs; call after every port is bound. */
  start(): Promise<void>;
}

/** Everything in one process (role `all`): what tests, benchmarks and a single machine run. */
export interface Service extends RoleService {
  readonly worker: OutboxWorker;
  readonly webhooks: WebhookDispatcher;
}

/**
 * The store and what every use case needs, without HTTP or the worker: the CLI's
 * whole world, and the first half of createService. The admin token is not touched
 * here, so a CLI run on a fresh installation leaves its printing to the server's
 * first start.
 */
export async function openAppDeps(
  config: Config,
  options: {
    clock?: () => number; wakeOutbox?: () => void; wakeWebhooks?: () => void; wakeImports?: () => void; wakeCampaigns?: () => void;
    /** Told of each migration this start applies (the server logs them; the CLI applies them quietly). */
    onMigrated?: (migration: AppliedMigration) => void;
    /** Take the SQLite store's serving lock before the first query (ServiceOptions.servingLock). */
    servingLock?: boolean;
    /** Where the periodic jobs opened here (the SQLite checkpoint thread's ticks) say a turn failed; default silent. */
    logger?: Logger;
  } = {},
): Promise<{ store: OpenedStore; deps: AuthDeps; lock: ServingLock | undefined; committer: GroupCommitter }> {
  // A SQLite file's checkpoint thread ticks on the engine's timer (store/wal-checkpointer.ts).
  const repeat = repeatEvery('wal-checkpoint', { logger: options.logger ?? pino({ level: 'silent' }) });
  const store = openStore(config.databaseUrl, { poolSize: config.databasePoolSize, repeat });
  const metrics = createMetrics();
  const clock = options.clock ?? Date.now;
  metrics.readQueuesWith(() => readQueueDepths(store.db, clock()));
  metrics.readDkimKeysWith(() => oldestDkimKeyCreatedAt(store.db));
  let lock: ServingLock | undefined;
  try {
    // Before anything reads or writes the store: a second serving process stops here.
    if (options.servingLock === true) lock = lockOrExplain(store);
    await openOrExplain(store.db, config.databaseUrl);
    await migrateOrExplain(store.db, options.onMigrated);
    const signingSecret = await loadSigningSecret(store.db);
    // From here on envelope senders carry tags: untagged ones are believed only for older messages (app/verp-check.ts).
    await recordVerpTagsSince(store.db, clock());
    const limits = requestLimitsOf(config);
    // Concurrent units of work (sends, claims, outcomes) share one durable commit.
    const committer = committerOf(store, metrics);
    const deps: AuthDeps = {
      db: store.db,
      commit: committer,
      // Per-store state (issue 20: made here and passed, never kept in module maps).
      idempotencyKeys: new IdempotencyKeysInProcess(),
      signingKey: new LoadedSigningKey(store.db),
      ...(config.inboundPerSenderPerMinute === 0 ? {} : { inboundLimit: new InboundSenderLimit(config.inboundPerSenderPerMinute) }),
      clock,
      metrics,
      // One source per process: its ids increase strictly, whoever asks.
      newId: uuidv7Source(),
      signingSecret,
      // Verified keys kept 5 s: a key revoked by another process stops working here within that.
      verifiedKeys: newVerifiedKeyCache(),
      // Accounts, verified sender domains and approved templates kept 1 s (app/read-caches.ts).
      readCaches: newReadCaches(),
      keyUses: new KeyUseThrottle(),
      publicUrl: config.publicUrl,
      trackedLinkDays: config.trackedLinkDays,
      dnsServers: config.dnsServers,
      auth: {
        sessionIdleMs: config.sessionIdleMinutes * 60_000,
        sessionMaxMs: config.sessionMaxHours * 3_600_000,
        invitationMs: config.invitationHours * 3_600_000,
        passwordResetMs: config.passwordResetMinutes * 60_000,
        sessionRateLimitPerSecond: config.sessionRateLimitPerSecond,
        emailFrom: config.authEmailFrom,
      },
      bounceDomain: config.bounceDomain ?? new URL(config.publicUrl).hostname,
      limits,
      templates: templateEngineFor(limits, config.templateCacheBytes),
      quotas: { maxContacts: config.accountMaxContacts, maxUploadBytes: config.accountMaxUploadBytes, maxImportsInFlight: config.accountMaxImports },
      heavyReadMs: config.heavyReadTimeoutMs,
      // The in-process worker is woken directly; workers of other processes (the server's,
      // when this is the CLI) through the store: PostgreSQL NOTIFY, or their next poll.
      wakeOutbox: () => {
        options.wakeOutbox?.();
        store.notifier.notify(OUTBOX_WAKE);
      },
      wakeWebhooks: () => {
        options.wakeWebhooks?.();
        store.notifier.notify(WEBHOOK_WAKE);
      },
      wakeImports: () => {
        options.wakeImports?.();
        store.notifier.notify(IMPORTS_WAKE);
      },
      wakeCampaigns: () => {
        options.wakeCampaigns?.();
        store.notifier.notify(CAMPAIGNS_WAKE);
      },
    };
    return { store, deps, lock, committer };
  } catch (error) {
    await store.db.destroy();
    lock?.release();
    throw error;
  }
}

// A webhook URL's host is resolved once when an account sets it; a resolver that hangs gets this long.
const WEBHOOK_URL_CHECK_MS = 5000;

/**
 * The group committer of the store (store/group-commit.ts). SQLite: one writer, one
 * batch at a time, synced off the event loop. PostgreSQL: a few batches in flight on
 * connections of the pool, each waiting on another transaction's lock for a bounded
 * time (see GroupCommitOptions.lockWait); the worker gets a committer of its own.
 * docs/performance.md has the measurements behind the figures.
 */
function committerOf(store: OpenedStore, metrics: Metrics): GroupCommitter {
  const counted = { onBatch: metrics.commitBatchObserved, onEvents: metrics.eventsRecorded };
  if (store.capabilities.singleServerProcess) return groupCommitter(store.db, { maxBatch: 256, ...counted, ...(store.direct ? { direct: store.direct } : {}) });
  return groupCommitter(store.db, {
    maxBatch: PG_MAX_BATCH, lanes: PG_LANES, ...counted, lockWait: { timeoutMs: PG_LOCK_WAIT_MS, isLockLoss: isPostgresLockLoss }, deferDebits: true,
  });
}

// A batch holds the row lock of every account it debits from its debits (taken together
// at its end, deferDebits) to its commit; a batch run again with savepoints (a unit
// failed) debits per unit and holds it longer: batches are kept small enough for the
// wait of other lanes and processes on that lock to stay short.
const PG_MAX_BATCH = 32;
const PG_LANES = 2;
// Far above a batch's duration: only a wait on a long foreign transaction (or a slow
// deadlock) reaches it; the unit then runs alone and its batch goes on without it.
const PG_LOCK_WAIT_MS = 5000;

/**
 * Everything in one process: the API, the outbox worker, the webhook dispatcher and the
 * inbound listener. Tests call it with `sqlite::memory:` to get the real thing.
 */
export async function createService(config: Config, options: Omit<ServiceOptions, 'role'> = {}): Promise<Service> {
  const service = await createRoleService(config, { ...options, role: 'all' });
  const { worker, webhooks } = service;
  if (worker === undefined || webhooks === undefined) throw new Error('role all runs the worker and the dispatcher');
  return { ...service, worker, webhooks };
}

/** The inbound SMTP listener as configured, or none when HERALD_INBOUND_SMTP_PORT is unset. */
async function startInboundSmtp(config: Config, deps: AuthDeps, logger: Logger): Promise<InboundListener | undefined> {
  if (config.inboundSmtpPort === undefined) return undefined;
  // Loaded lazily: smtp-server and mailparser add ~40 MB resident to a process that takes no mail.
  const { startConfiguredInboundListener } = await import('./inbound/listener.ts');
  const port = config.inboundSmtpPort;
  return listenOrExplain({ portVariable: 'HERALD_INBOUND_SMTP_PORT', hostVariable: 'HERALD_INBOUND_SMTP_HOST', port, host: config.inboundSmtpHost }, () =>
    startConfiguredInboundListener(config, deps, logger));
}

/** SMTP submission as configured (issue 22), or none when both of its ports are off. */
async function startSubmission(config: Config, deps: AuthDeps, rateCounter: AccountRateLimiter, logger: Logger): Promise<RunningSubmission | undefined> {
  if (config.submissionPort === undefined && config.submissionsPort === undefined) return undefined;
  // Loaded lazily, as the inbound listener: smtp-server and mailsplit weigh on a process that takes no mail.
  const { startConfiguredSubmission } = await import('./submission/configured-submission.ts');
  const [portVariable, port] = config.submissionPort === undefined
    ? ['HERALD_SUBMISSIONS_PORT', config.submissionsPort ?? 0] as const
    : ['HERALD_SUBMISSION_PORT', config.submissionPort] as const;
  return listenOrExplain({ portVariable, hostVariable: 'HERALD_SUBMISSION_HOST', port, host: config.submissionHost }, () =>
    startConfiguredSubmission(config, { keys: deps, rateCounter, logger }));
}

/**
 * Wires config → store → use cases → what the role runs (src/roles.ts), and starts it:
 * the inbound SMTP listener bound, the heartbeat and the loops running; HTTP is left
 * to the caller (tests inject; main.ts binds it before starting, see prepareRoleService).
 */
export async function createRoleService(config: Config, options: ServiceOptions = {}): Promise<RoleService> {
  const service = await prepareRoleService(config, options);
  try {
    await service.listenInbound();
    await service.start();
  } catch (error) {
    await service.close();
    throw error;
  }
  return service;
}

/**
 * Wires config → store → use cases → what the role runs (src/roles.ts): HTTP, the
 * outbox worker, the webhook dispatcher, the inbound SMTP listener; nothing bound or
 * started. main.ts binds every port, then calls start(): a process answers /healthz
 * before any loop or background job runs, and one whose port is taken never starts them.
 */
export async function prepareRoleService(config: Config, options: ServiceOptions = {}): Promise<PreparedRoleService> {
  const logger = options.logger ?? createLogger({ level: config.logLevel, format: config.logFormat });
  const workerLogger = logger === false ? pino({ level: 'silent' }) : logger;
  const clock = options.clock ?? Date.now;
  let worker: OutboxWorker | undefined;
  let workerCommitter: GroupCommitter | undefined;
  let webhooks: WebhookDispatcher | undefined;
  let imports: ImportRunner | undefined;
  let campaigns: CampaignRunner | undefined;
  let simulatedReports: SimulatedReportQueue | undefined;
  let inboundMedia: InboundMediaQueue | undefined;
  const simulatorPollMs = Math.min(1000, Math.max(10, config.simulatorStepMs / 2));
  const role = options.role ?? config.role;
  const parts = partsOf(role);
  // What this process runs in the background: the engine's table of jobs (queue/jobs.ts).
  const jobs = jobsOf(parts);
  const { store, deps, lock, committer } = await openAppDeps(config, {
    clock, wakeOutbox: () => worker?.wake(), wakeWebhooks: () => webhooks?.wake(), wakeImports: () => imports?.wake(), wakeCampaigns: () => campaigns?.wake(),
    onMigrated: (migration) => {
      if (logger !== false) logger.info({ migration: migration.name, ms: migration.ms }, 'migration applied');
    },
    // Only a process with loops: the CLI and `--role api` work beside the server.
    servingLock: options.servingLock === true && runsLoops(parts),
    logger: workerLogger,
  });
  const adminToken = await prepareAdminToken(store.db, config.adminToken);
  // Loaded (or created) now, so signing a receipt after a delivery never waits on the store.
  await deps.signingKey.get();
  // This process's heartbeat row, and the owner of the leases it takes (app/process-heartbeat.ts: fast takeover).
  const heartbeat = new ProcessHeartbeat(
    { db: store.heartbeat.db, clock, logger: workerLogger, onTakeover: () => { worker?.wake(); webhooks?.wake(); campaigns?.wake(); imports?.wake(); inboundMedia?.wake(); } },
    role, deps.newId(),
  );

  // Held (--paused, or a restored copy) before any loop can claim; read by the delivering loops.
  if (options.paused === true) await holdDelivery(store.db, { since: clock(), reason: 'started with --paused' });
  const deliveryHold = jobs.has('delivery-hold')
    ? new DeliveryHoldWatch({ db: store.db, logger: workerLogger, onRelease: () => { worker?.wake(); webhooks?.wake(); } })
    : undefined;
  const held = deliveryHold === undefined ? {} : { held: deliveryHold.held };

  // Delivery belongs to `all` and `worker`: an API process opens no SMTP pool, SMPP
  // session or Cloud API client, and posts no webhooks.
  let closeTransports = async (): Promise<void> => {};
  const workerOptions: WorkerOptions = { ...DEFAULT_WORKER_OPTIONS, leaseMs: config.outboxLeaseSeconds * 1000, owner: heartbeat.id, ...options.workerOptions };
  if (jobs.has('outbox')) {
    const built = await buildTransports(config, deps, workerLogger);
    closeTransports = built.close;
    // SQLite: claims and outcomes share the accepts' committer, one fsync per batch, not
    // per message. PostgreSQL: a committer of their own, so an outcome never waits in
    // a batch held up by the accepts' debits of a busy account (its lease runs meanwhile).
    workerCommitter = store.capabilities.singleServerProcess ? committer : committerOf(store, deps.metrics);
    worker = new OutboxWorker(
      {
        db: store.db, clock, newId: deps.newId, capabilities: store.capabilities, transports: built.transports, sandbox: built.sandbox, logger: workerLogger, metrics: deps.metrics,
        commit: workerCommitter,
        retryHorizons: { ...RETRY_HORIZON_MS, email: config.emailRetryHours * 3_600_000 },
        issueCertificate: certificateIssuer({ db: store.db, signingKey: deps.signingKey, publicUrl: config.publicUrl, clock }),
        // Only outcomes whose events queued a webhook delivery wake the dispatcher.
        onWebhookQueued: () => webhooks?.wake(),
        ...held,
      },
      workerOptions,
    );
    // The simulator recipients' later reports (docs/sandbox.md), where messages are delivered.
    simulatedReports = new SimulatedReportQueue(
      {
        db: store.db, commit: deps.commit, clock, capabilities: store.capabilities, logger: workerLogger,
        record: (tx, report, at) => recordSimulatedStep(tx, deps, report, at),
        onRecorded: () => webhooks?.wake(),
      },
      { owner: heartbeat.id, leaseMs: workerOptions.leaseMs, pollMs: simulatorPollMs },
    );
  }
  // WhatsApp users' media, fetched from the Graph API root the Cloud API transport uses:
  // none with the capture transport (attachments stay pending). Not held with delivery:
  // fetching sends nothing.
  if (jobs.has('inbound-media') && config.whatsappTransport !== 'capture') {
    inboundMedia = new InboundMediaQueue(
      {
        db: store.db, commit: deps.commit, clock, capabilities: store.capabilities, logger: workerLogger,
        ...cloudApiMediaDeps(store.db, { baseUrl: config.whatsappTransport, maxBytes: config.inboundMediaMaxBytes, allowPrivate: config.fetchAllowPrivate }),
      },
      { ...DEFAULT_INBOUND_MEDIA_OPTIONS, owner: heartbeat.id },
    );
  }
  if (jobs.has('webhooks')) {
    webhooks = new WebhookDispatcher(
      { db: store.db, commit: deps.commit, clock, newId: deps.newId, capabilities: store.capabilities, logger: workerLogger, allowPrivate: config.fetchAllowPrivate, metrics: deps.metrics, ...held },
      { ...DEFAULT_DISPATCHER_OPTIONS, timeoutMs: config.webhookTimeoutMs, owner: heartbeat.id, ...options.webhookOptions },
    );
  }

  if (jobs.has('imports') && options.imports !== false) {
    imports = new ImportRunner(deps, store.capabilities, workerLogger, { ...DEFAULT_IMPORT_RUNNER_OPTIONS, maxAttempts: config.importMaxAttempts, owner: heartbeat.id, ...options.importOptions });
  }
  if (jobs.has('campaigns')) {
    campaigns = new CampaignRunner(deps, store.capabilities, workerLogger, { ...DEFAULT_CAMPAIGN_RUNNER_OPTIONS, owner: heartbeat.id, ...options.campaignOptions });
  }

  // The loops this process runs, for /readyz and herald_loop_last_turn_age_seconds. The
  // import runner is left out, as before it ran on the lease loop: no `import` loop label.
  const watchedLoops: WatchedLoop[] = [];
  if (options.worker !== false) {
    const watched: [string, LeaseLoop<string, unknown> | undefined][] = [
      ['outbox delivery loop', worker], ['webhook delivery loop', webhooks], ['campaign loop', campaigns], ['simulator report loop', simulatedReports],
      ['inbound media loop', inboundMedia],
    ];
    for (const [what, loop] of watched) if (loop !== undefined) watchedLoops.push({ what, pollMs: loop.pollMs, lastTurnAt: () => loop.lastTurnAt() });
  }
  deps.metrics.watchLoops(watchedLoops, clock);

  // Guesses (sign-in, codes, tokens) are counted in Redis when there is one, so every API process slows the same guesser.
  // Loaded lazily, as for the rate limiter: ioredis weighs ~20 MB in a process without Redis.
  const signInRedis = parts.api && config.redisUrl !== undefined
    ? (await import('./redis-client.ts')).openRedis(config.redisUrl, { logger: workerLogger, name: 'herald-sign-in' })
    : undefined;
  const rateLimit = await configuredRateLimiter(config, workerLogger, options.rateLimiter);
  const attemptLimits = { ...DEFAULT_ATTEMPT_LIMITS, ...options.attemptLimits };
  deps.metrics.attemptCountersKnown(Object.keys(attemptLimits));
  // SMTP submission, in a process that serves the API; off unless HERALD_SUBMISSION_PORT or HERALD_SUBMISSIONS_PORT is set. Bound by listenInbound().
  let submission: RunningSubmission | undefined;
  // The account's events for open pages (GET /v1/events/stream), in a process that serves the API.
  const liveFeed = jobs.has('live-events')
    ? new LiveFeed({ db: store.db, clock, logger: workerLogger, sessionIdleMs: deps.auth.sessionIdleMs }, options.liveFeedOptions)
    : undefined;
  // The requests each key makes (app/api-request-log.ts), written by the job `api-requests-flush` of a process that serves the API.
  const apiRequestLog = new ApiRequestLog(deps, workerLogger);
  const http = await buildApp({
    app: deps,
    apiRequestLog,
    adminToken,
    rateLimiter: rateLimit.limiter,
    attemptThrottle: attemptThrottle(
      attemptLimits,
      signInRedis && { client: signInRedis.client, keyPrefix: config.redisPrefix },
      (counter) => deps.metrics.attemptRefused(counter),
    ),
    logger,
    trustProxy: config.trustProxy,
    bodyLimitBytes: config.bodyLimitBytes,
    importBodyLimitBytes: config.importBodyLimitBytes,
    whatsappWebhook: { appSecret: config.whatsappAppSecret, verifyToken: config.whatsappVerifyToken },
    checkWebhookUrl: (url) => checkPostTarget(url, { allowPrivate: config.fetchAllowPrivate, timeoutMs: WEBHOOK_URL_CHECK_MS }),
    healthOnly: !parts.api,
    // A process that runs loops is not ready while one of them stands still.
    readiness: () => stalledLoop(watchedLoops, clock()),
    timeouts: { headersMs: config.httpHeadersTimeoutMs, requestMs: config.httpRequestTimeoutMs, keepAliveMs: config.httpKeepAliveTimeoutMs },
    // The ports as bound once listenInbound() has bound them (`0` picks one); the configured ones before.
    submission: () => submission?.endpoint ?? submissionEndpointOf(config),
    ...(options.webRoot === undefined ? {} : { webRoot: options.webRoot }),
    ...(liveFeed === undefined ? {} : { liveFeed }),
  });
  // Bounces and complaints for the bounce domain; off unless HERALD_INBOUND_SMTP_PORT is set. Bound by listenInbound().
  let inbound: InboundListener | undefined;

  // Commits in other processes wake this worker at once (PostgreSQL LISTEN); the poll stays the fallback.
  const running = options.worker !== false;
  const stops: (() => Promise<void>)[] = [];
  // Built whether or not they run (options.worker false: tests drain them by hand).
  const runningWorker = worker;
  const runningWebhooks = webhooks;
  const runningImports = imports;
  const runningCampaigns = campaigns;
  const runningReports = simulatedReports;
  const runningInboundMedia = inboundMedia;
  // Content older than HERALD_RETENTION_DAYS is purged by the processes that deliver (0: kept for ever).
  const retentionOptions = { ...DEFAULT_RETENTION_OPTIONS, days: config.retentionDays };
  const sweepsRetention = running && jobs.has('retention') && retentionOptions.days > 0;
  // The periodic jobs of this process (queue/periodic-job.ts), stopped by close().
  let retention: ScheduledJob | undefined;
  let apiRequestsPurge: ScheduledJob | undefined;
  let smsReassembly: ScheduledJob | undefined;
  let fallbackLegs: ScheduledJob | undefined;
  let whatsappTemplates: ScheduledJob | undefined;
  let holdWatch: ScheduledJob | undefined;
  let beats: ScheduledJob | undefined;
  let liveTurns: ScheduledJob | undefined;
  let apiRequestsFlush: ScheduledJob | undefined;
  const periodic = { logger: workerLogger };
  let started = false;
  const start = async (): Promise<void> => {
    if (started) return;
    started = true;
    // The hold is read before any delivering loop can claim, then watched.
    if (deliveryHold !== undefined) {
      await deliveryHold.start();
      holdWatch = schedulePeriodic({ name: 'delivery-hold', everyMs: DELIVERY_HOLD_WATCH_MS, run: () => deliveryHold.refresh() }, periodic);
    }
    // Listened to first, so a worker's listening connection still shows the outbox's and webhooks' LISTEN last (pg_stat_activity).
    if (runningImports !== undefined) {
      runningImports.start();
      stops.push(store.notifier.listen(IMPORTS_WAKE, () => runningImports.wake()));
    }
    if (running && runningCampaigns !== undefined) {
      runningCampaigns.start();
      stops.push(store.notifier.listen(CAMPAIGNS_WAKE, () => runningCampaigns.wake()));
    }
    if (running && runningWorker !== undefined) {
      runningWorker.start();
      stops.push(store.notifier.listen(OUTBOX_WAKE, (payload) => runningWorker.wake(CHANNELS.find((channel) => channel === payload))));
    }
    if (running) runningReports?.start();
    if (running) runningInboundMedia?.start();
    if (running && runningWebhooks !== undefined) {
      runningWebhooks.start();
      stops.push(store.notifier.listen(WEBHOOK_WAKE, () => runningWebhooks.wake()));
    }
    if (sweepsRetention) {
      const retentionDeps = { db: store.db, commit: deps.commit, clock, logger: workerLogger };
      retention = schedulePeriodic({ name: 'retention', everyMs: retentionOptions.intervalMs, run: (signal) => retentionTurn(retentionDeps, retentionOptions, signal) }, periodic, { runAtStart: true });
    }
    // Each key's request log keeps 30 days, whatever HERALD_RETENTION_DAYS says (app/api-request-log.ts).
    if (running && jobs.has('api-requests-purge')) {
      apiRequestsPurge = schedulePeriodic({ name: 'api-requests-purge', everyMs: API_REQUEST_PURGE_MS, run: async (signal) => { await purgeOldApiRequests({ db: store.db, clock }, signal); } }, periodic, { runAtStart: true });
    }
    // Parts of inbound SMS exist only where an SMPP session takes them (docs/inbound-sms.md).
    if (running && jobs.has('sms-reassembly') && config.smsTransport !== 'capture') {
      smsReassembly = schedulePeriodic({ name: 'sms-reassembly', everyMs: SMS_REASSEMBLY_SWEEP_MS, run: async (signal) => { await deliverOverdueSmsParts(deps, config.smsReassemblyTimeoutMs, signal); } }, periodic);
    }
    // The legs of fallback chains go, or are refunded, as their previous legs are answered (docs/fallback.md).
    if (running && jobs.has('fallback')) {
      const scan: FallbackScan = {};
      fallbackLegs = schedulePeriodic({ name: 'fallback', everyMs: FALLBACK_TURN_MS, run: async (signal) => { await releaseFallbackLegs(deps, signal, scan); } }, periodic);
    }
    // Templates the accounts created go to Meta's template management (docs/whatsapp-templates.md).
    if (running && jobs.has('whatsapp-templates') && config.whatsappTransport !== 'capture') {
      const graph = { baseUrl: config.whatsappTransport };
      const submitDeps = { db: store.db, clock, submit: (waba: string, token: string, template: TemplateToSubmit, signal: AbortSignal) => submitCloudApiTemplate(graph, waba, token, template, signal) };
      whatsappTemplates = schedulePeriodic({ name: 'whatsapp-templates', everyMs: WHATSAPP_TEMPLATE_SUBMIT_MS, run: async (signal) => { await submitQueuedWhatsappTemplates(submitDeps, signal); } }, periodic, { runAtStart: true });
    }
    // The operator's service health lists this process while it runs; its id owns the
    // loops' leases, and its first beat takes over those of processes that went silent.
    await heartbeat.start();
    if (jobs.has('api-requests-flush')) apiRequestsFlush = schedulePeriodic({ name: 'api-requests-flush', everyMs: API_REQUEST_FLUSH_MS, run: () => apiRequestLog.flush() }, periodic);
    if (liveFeed !== undefined) liveTurns = schedulePeriodic({ name: 'live-events', everyMs: liveFeed.options.pollMs, run: () => liveFeed.turn() }, periodic);
    beats = schedulePeriodic({ name: 'heartbeat', everyMs: HEARTBEAT_MS, run: () => heartbeat.beat() }, periodic);
  };
  return {
    role, http, worker: runningWorker, webhooks: runningWebhooks, imports: runningImports, campaigns: runningCampaigns, simulatedReports: runningReports, inboundMedia: runningInboundMedia,
    store, deps, adminToken, liveFeed, apiRequestLog,
    get inboundSmtpPort() { return inbound?.port; },
    get submission() { return submission?.endpoint; },
    metrics: deps.metrics,
    deliveryHold,
    async listenInbound() {
      if (parts.inboundSmtp && inbound === undefined) inbound = await startInboundSmtp(config, deps, workerLogger);
      if (parts.api && submission === undefined) submission = await startSubmission(config, deps, rateLimit.limiter, workerLogger);
    },
    start,
    async close() {
      // Stop taking requests, let in-flight deliveries finish, hang up on the peers, close the store.
      // Open event streams never end by themselves: they are ended first.
      await liveTurns?.stop();
      liveFeed?.closeAll();
      await http.close();
      // The requests answered until the server closed, then no more turns.
      await apiRequestsFlush?.stop();
      await apiRequestLog.flush();
      await inbound?.close();
      await submission?.close();
      await rateLimit.close();
      await signInRedis?.close();
      for (const stop of stops) await stop();
      await retention?.stop();
      await apiRequestsPurge?.stop();
      await smsReassembly?.stop();
      await fallbackLegs?.stop();
      await whatsappTemplates?.stop();
      for (const loop of [runningImports, runningCampaigns, runningWorker, runningReports, runningInboundMedia, runningWebhooks]) await loop?.close();
      await closeTransports();
      await beats?.stop();
      if (started) await heartbeat.stop();
      await holdWatch?.stop();
      await deliveryHold?.stop();
      await store.heartbeat.close();
      // Units still queued are answered StoreClosed, and batches in flight end, before the store goes.
      await workerCommitter?.close();
      await committer.close();
      await store.db.destroy();
      lock?.release();
      deps.metrics.close();
    },
  };
}
