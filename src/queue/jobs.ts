import { API_REQUEST_FLUSH_MS, API_REQUEST_PURGE_MS } from '../app/api-request-log.ts';
import { DELIVERY_HOLD_WATCH_MS } from '../app/delivery-hold.ts';
import { FALLBACK_TURN_MS } from '../app/fallback-release.ts';
import { HEARTBEAT_MS } from '../app/process-heartbeat.ts';
import { SMS_REASSEMBLY_SWEEP_MS } from '../app/receive-sms-part.ts';
import { DEFAULT_LIVE_FEED_OPTIONS } from '../app/live-feed.ts';
import { WHATSAPP_TEMPLATE_SUBMIT_MS } from '../app/submit-whatsapp-templates.ts';
import { DEFAULT_RETENTION_OPTIONS } from '../app/retention-sweep.ts';
import { WAL_CHECKPOINT_MS } from '../store/wal-checkpointer.ts';
import { DEFAULT_CAMPAIGN_RUNNER_OPTIONS } from './campaigns/campaign-runner.ts';
import { DEFAULT_IMPORT_RUNNER_OPTIONS } from './imports/import-runner.ts';
import { DEFAULT_INBOUND_MEDIA_OPTIONS, INBOUND_MEDIA_SLOTS } from './inbound-media/inbound-media-queue.ts';
import { DEFAULT_WORKER_OPTIONS } from './outbox/worker.ts';
import { SIMULATED_REPORT_SLOTS } from './simulated-reports/simulated-report-queue.ts';
import { DEFAULT_DISPATCHER_OPTIONS } from './webhooks/dispatcher.ts';

// Every job of herald's engine in one table: what it is, which part of a role runs it
// (src/roles.ts: `all` runs every part, `worker` every part but the API, `api` none), and
// its settings as they are by default. Two kinds: a lease queue (queue/lease-loop.ts, one
// per leased table) and a periodic job (queue/periodic-job.ts). service.ts builds what
// jobsOf() names for its role; tests and operators read the table (docs/operations.md).

/** The parts of a role (src/roles.ts RoleParts) that run background work; `api` the live feed of open pages. */
export type JobPart = 'delivery' | 'webhooks' | 'imports' | 'api';

export interface LeaseQueueJob {
  readonly kind: 'lease queue';
  /** The part whose processes run it. */
  readonly part: JobPart;
  /** Largest claim, jobs in flight (per lane), fallback poll, lease (ms). */
  readonly settings: { readonly batchSize: number; readonly concurrency: number; readonly pollMs: number; readonly leaseMs: number };
  /** What changes them: the variables of src/config.ts, or what they follow. */
  readonly configuredBy: string;
}

export interface PeriodicJobEntry {
  readonly kind: 'periodic';
  /** The parts whose processes run it (any of them); `every process` for the heartbeat and the store's own jobs. */
  readonly part: readonly JobPart[] | 'every process';
  readonly everyMs: number;
  readonly configuredBy: string;
}

export const JOBS = {
  outbox: {
    kind: 'lease queue', part: 'delivery', settings: DEFAULT_WORKER_OPTIONS,
    configuredBy: 'HERALD_OUTBOX_LEASE_SECONDS (leaseMs)',
  },
  'simulator-reports': {
    kind: 'lease queue', part: 'delivery', settings: { ...SIMULATED_REPORT_SLOTS, pollMs: 1000, leaseMs: DEFAULT_WORKER_OPTIONS.leaseMs },
    configuredBy: 'HERALD_SIMULATOR_STEP_MS (pollMs: half a step, 10 ms to 1 s), HERALD_OUTBOX_LEASE_SECONDS (leaseMs)',
  },
  'inbound-media': {
    kind: 'lease queue', part: 'delivery',
    settings: { ...INBOUND_MEDIA_SLOTS, pollMs: DEFAULT_INBOUND_MEDIA_OPTIONS.pollMs, leaseMs: DEFAULT_INBOUND_MEDIA_OPTIONS.leaseMs },
    configuredBy: 'HERALD_INBOUND_MEDIA_MAX_BYTES (largest file); runs only with the Cloud API as HERALD_WHATSAPP_TRANSPORT (its Graph API root)',
  },
  webhooks: {
    kind: 'lease queue', part: 'webhooks', settings: DEFAULT_DISPATCHER_OPTIONS,
    configuredBy: 'HERALD_WEBHOOK_TIMEOUT_MS (one post; the lease outlives it)',
  },
  imports: {
    kind: 'lease queue', part: 'imports', settings: { batchSize: 1, concurrency: 1, pollMs: DEFAULT_IMPORT_RUNNER_OPTIONS.pollMs, leaseMs: DEFAULT_IMPORT_RUNNER_OPTIONS.leaseMs },
    configuredBy: 'HERALD_IMPORT_MAX_ATTEMPTS (quarantine after that many claims without a batch)',
  },
  campaigns: {
    kind: 'lease queue', part: 'imports', settings: { batchSize: 1, concurrency: 1, pollMs: DEFAULT_CAMPAIGN_RUNNER_OPTIONS.pollMs, leaseMs: DEFAULT_CAMPAIGN_RUNNER_OPTIONS.leaseMs },
    configuredBy: 'nothing: batches of 500 messages, 20 per turn',
  },
  retention: { kind: 'periodic', part: ['delivery'], everyMs: DEFAULT_RETENTION_OPTIONS.intervalMs, configuredBy: 'HERALD_RETENTION_DAYS (0: the job does not run)' },
  'api-requests-purge': { kind: 'periodic', part: ['delivery'], everyMs: API_REQUEST_PURGE_MS, configuredBy: 'nothing: each key\'s request log keeps 30 days (API_REQUEST_LOG_DAYS)' },
  'sms-reassembly': {
    kind: 'periodic', part: ['delivery'], everyMs: SMS_REASSEMBLY_SWEEP_MS,
    configuredBy: 'HERALD_SMS_REASSEMBLY_TIMEOUT_MS (parts older than it are delivered incomplete); runs only with an SMPP transport',
  },
  'whatsapp-templates': {
    kind: 'periodic', part: ['delivery'], everyMs: WHATSAPP_TEMPLATE_SUBMIT_MS,
    configuredBy: 'nothing: 10 templates a turn, a failed try again after 60 s; runs only with the Cloud API as HERALD_WHATSAPP_TRANSPORT (its Graph API root)',
  },
  fallback: {
    kind: 'periodic', part: ['delivery'], everyMs: FALLBACK_TURN_MS,
    configuredBy: 'nothing: 200 legs of fallback chains a turn; each send names its own `after` (docs/fallback.md)',
  },
  'delivery-hold': { kind: 'periodic', part: ['delivery', 'webhooks'], everyMs: DELIVERY_HOLD_WATCH_MS, configuredBy: 'nothing' },
  'api-requests-flush': {
    kind: 'periodic', part: ['api'], everyMs: API_REQUEST_FLUSH_MS,
    configuredBy: 'nothing: writes the requests each key made since the last turn, 500 at most between turns (app/api-request-log.ts)',
  },
  'live-events': {
    kind: 'periodic', part: ['api'], everyMs: DEFAULT_LIVE_FEED_OPTIONS.pollMs,
    configuredBy: 'nothing: reads the store only while a stream of GET /v1/events/stream is open (docs/live-updates.md)',
  },
  heartbeat: { kind: 'periodic', part: 'every process', everyMs: HEARTBEAT_MS, configuredBy: 'nothing: a process silent for 5 beats loses its leases' },
  'wal-checkpoint': { kind: 'periodic', part: 'every process', everyMs: WAL_CHECKPOINT_MS, configuredBy: 'nothing: only on a SQLite file, while batches come steadily' },
} as const satisfies Record<string, LeaseQueueJob | PeriodicJobEntry>;

export type JobName = keyof typeof JOBS;

/** The jobs a process of these parts runs, in the table's order. */
export function jobsOf(parts: Readonly<Record<JobPart, boolean>>): Set<JobName> {
  const names = Object.keys(JOBS) as JobName[];
  return new Set(names.filter((name) => {
    const job: LeaseQueueJob | PeriodicJobEntry = JOBS[name];
    if (job.kind === 'lease queue') return parts[job.part];
    return job.part === 'every process' || job.part.some((part) => parts[part]);
  }));
}
