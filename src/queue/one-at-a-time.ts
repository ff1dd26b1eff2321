import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { KeyDeps } from '../app/api-keys.ts';
import type { DialectCapabilities } from '../store/dialect.ts';
import { loopSettings, type LeaseLoopDeps, type LeaseLoopOptions, type LeaseQueue } from './lease-loop.ts';

// Campaigns and contact imports are queues of one job at a time per process: a job is a
// long run of batches (database work on one connection, one core), taken under a lease
// owned by the process's heartbeat id (store/lease-takeover.ts), let go when stop() ends
// it after the batch in hand.

/** What both runners are built with. */
export interface OneAtATimeOptions {
  readonly leaseMs: number;
  readonly pollMs: number;
  /** The owner of its leases: the process's heartbeat id, for the fast takeover (store/lease-takeover.ts); a random one when absent. */
  readonly owner?: string;
}

/** A one-at-a-time queue with its loop's settings (one claim of one job, one in flight): what LeaseLoop's constructor takes. */
export function oneAtATimeLoop<Lane extends string, Job, Options extends OneAtATimeOptions>(
  queue: OneAtATimeQueue<Lane, Job, Options>,
): [LeaseQueue<Lane, Job>, LeaseLoopOptions, LeaseLoopDeps] {
  const { capabilities, logger, deps, options } = queue;
  return [queue, ...loopSettings({ batchSize: 1, concurrency: 1, pollMs: options.pollMs }, { capabilities, logger, clock: deps.clock })];
}

/** The part the two queues share: one lane named after the queue, their dependencies, the lease owner, and stop()'s flag. */
export abstract class OneAtATimeQueue<Lane extends string, Job, Options extends OneAtATimeOptions> implements LeaseQueue<Lane, Job> {
  readonly name: Lane;
  readonly lanes: readonly Lane[];
  readonly deps: KeyDeps;
  readonly capabilities: DialectCapabilities;
  readonly logger: Logger;
  readonly options: Options;
  protected readonly owner: string;
  /** Set by stop(): nothing more is claimed, and the job in hand ends after its batch. */
  protected stopped = false;

  /** `name` is the queue's and its one lane's, and names a random owner when options.owner is absent (`campaigns-…`). */
  constructor(name: Lane, deps: KeyDeps, capabilities: DialectCapabilities, logger: Logger, options: Options) {
    this.name = name;
    this.lanes = [name];
    this.deps = deps;
    this.capabilities = capabilities;
    this.logger = logger;
    this.options = options;
    this.owner = options.owner ?? `${name}-${randomUUID()}`;
  }

  abstract releaseAllLeases(): Promise<number>;
  abstract claim(lane: Lane, limit: number): Promise<readonly Job[]>;
  abstract deliver(job: Job): Promise<void>;

  unwritten(): number {
    return 0;
  }

  stopping(): void {
    this.stopped = true;
  }
}
