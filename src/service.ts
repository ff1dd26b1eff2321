import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { v7 as uuidv7 } from 'uuid';
import { prepareAdminToken, type AdminTokenCheck } from './app/admin-token.ts';
import type { KeyDeps } from './app/api-keys.ts';
import { loadSigningSecret } from './app/signing-key.ts';
import type { Config } from './config.ts';
import { buildApp } from './http/app.ts';
import { memoryRateLimiter, type AccountRateLimiter } from './http/plugins/rate-limit.ts';
import { RETRY_HORIZON_MS } from './outbox/retry-policy.ts';
import { DEFAULT_WORKER_OPTIONS, OutboxWorker, type WorkerOptions } from './outbox/worker.ts';
import { openStore, type OpenedStore } from './store/dialect.ts';
import { groupCommitter, transactionPerWork } from './store/group-commit.ts';
import { migrateToLatest } from './store/migrate.ts';
import { buildTransports } from './transports.ts';

export interface ServiceOptions {
  readonly logger?: Logger | false;
  readonly clock?: () => number;
  /** Runs the in-process delivery worker (default true). */
  readonly worker?: boolean;
  readonly workerOptions?: Partial<WorkerOptions>;
  readonly rateLimiter?: AccountRateLimiter;
}

export interface Service {
  readonly http: FastifyInstance;
  readonly worker: OutboxWorker;
  readonly store: OpenedStore;
  readonly deps: KeyDeps;
  readonly adminToken: AdminTokenCheck;
  close(): Promise<void>;
}

/**
 * The store and what every use case needs, without HTTP or the worker: the CLI's
 * whole world, and the first half of createService. The admin token is not touched
 * here, so a CLI run on a fresh installation leaves its printing to the server's
 * first start.
 */
export async function openAppDeps(
  config: Config,
  options: { clock?: () => number; wakeOutbox?: () => void } = {},
): Promise<{ store: OpenedStore; deps: KeyDeps }> {
  const store = openStore(config.databaseUrl);
  try {
    await migrateToLatest(store.db);
    const signingSecret = await loadSigningSecret(store.db);
    const deps: KeyDeps = {
      db: store.db,
      // One writer (embedded SQLite): concurrent sends share one durable commit.
      commit: store.capabilities.singleServerProcess ? groupCommitter(store.db, { maxBatch: 256 }) : transactionPerWork(store.db),
      clock: options.clock ?? Date.now,
      newId: uuidv7,
      signingSecret,
      publicUrl: config.publicUrl,
      dnsServers: config.dnsServers,
      bounceDomain: config.bounceDomain ?? new URL(config.publicUrl).hostname,
      // Without an in-process worker, a running server's worker finds new rows on its next poll.
      wakeOutbox: options.wakeOutbox ?? (() => {}),
    };
    return { store, deps };
  } catch (error) {
    await store.db.destroy();
    throw error;
  }
}

/**
 * Wires config → store → use cases → HTTP and the outbox worker. main.ts and the
 * CLI call this; tests call it with `sqlite::memory:` to get the real thing.
 */
export async function createService(config: Config, options: ServiceOptions = {}): Promise<Service> {
  const logger = options.logger ?? pino({ level: config.logLevel, redact: ['req.headers.authorization'] });
  const clock = options.clock ?? Date.now;
  let worker: OutboxWorker | undefined;
  const { store, deps } = await openAppDeps(config, { clock, wakeOutbox: () => worker?.wake() });
  const adminToken = await prepareAdminToken(store.db, config.adminToken);

  const workerLogger = logger === false ? pino({ level: 'silent' }) : logger;
  const { transports, close: closeTransports } = buildTransports(config, deps, workerLogger);
  worker = new OutboxWorker(
    {
      db: store.db, clock, newId: uuidv7, capabilities: store.capabilities, transports, logger: workerLogger,
      retryHorizons: { ...RETRY_HORIZON_MS, email: config.emailRetryHours * 3_600_000 },
    },
    { ...DEFAULT_WORKER_OPTIONS, owner: `worker-${randomUUID()}`, ...options.workerOptions },
  );

  const http = await buildApp({
    app: deps,
    adminToken,
    rateLimiter: options.rateLimiter ?? memoryRateLimiter(),
    logger,
    trustProxy: config.trustProxy,
    bodyLimitBytes: config.bodyLimitBytes,
    whatsappWebhook: { appSecret: config.whatsappAppSecret, verifyToken: config.whatsappVerifyToken },
  });
  if (options.worker !== false) worker.start();

  const runningWorker = worker;
  return {
    http, worker: runningWorker, store, deps, adminToken,
    async close() {
      // Stop taking requests, let in-flight deliveries finish, hang up on the peers, close the store.
      await http.close();
      await runningWorker.stop();
      await closeTransports();
      await store.db.destroy();
    },
  };
}
