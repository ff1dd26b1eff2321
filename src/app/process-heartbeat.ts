import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Role } from '../domain/process-role.ts';
import type { Db } from '../store/database.ts';
import { takeOverLeasesOfSilentProcesses } from '../store/lease-takeover.ts';
import { deleteProcess, deleteProcessesSeenBefore, insertProcess, touchProcess } from '../store/processes.ts';

// Every process says it is alive: a row at start, its last_seen_at refreshed every
// HEARTBEAT_MS (a periodic job of the engine, queue/periodic-job.ts), removed on a clean stop. The operator's service health lists the
// processes seen in the last hour. The process's id is also the owner of the leases it
// takes (outbox, webhooks, simulator reports, campaigns): after each beat, a process takes over
// the leases of any process silent for SILENT_AFTER_MS (store/lease-takeover.ts), so a
// killed worker's messages go out again within seconds, not after the whole lease.

export const HEARTBEAT_MS = 2000;
/**
 * Five beats missed: a process is taken for dead. Long enough for a busy machine's
 * pauses (a beat delayed by a second or two) and short enough for a killed worker's
 * messages to go out again within 15 s of its death (measured in
 * test/e2e/database-restart.test.ts). A live process silenced this long (its event loop
 * blocked, or cut off from the store) loses its leases; what it sends meanwhile may go
 * out twice, as after a lease's expiry.
 */
export const SILENT_AFTER_MS = 5 * HEARTBEAT_MS;
/** Rows of processes gone this long are removed by the next process that starts. */
const FORGET_AFTER_MS = 24 * 3600 * 1000;

export interface HeartbeatDeps {
  readonly db: Db;
  readonly clock: () => number;
  readonly logger: Logger;
  /** Called after leases were taken over, so this process's loops claim them at once. */
  readonly onTakeover?: () => void;
}

export class ProcessHeartbeat {
  readonly #deps: HeartbeatDeps;
  readonly #role: Role;
  /** This process's row, and the owner of its leases. */
  readonly id: string;
  #firstTakeover: Promise<void> = Promise.resolve();
  /**
   * Since when this process's beats have landed without a failure in between (undefined
   * while they fail). After the store was away (a restart), every process's beats
   * failed alike: none is judged silent before every live one had SILENT_AFTER_MS to beat
   * again.
   */
  #landingSince: number | undefined;
  #failing = false;

  constructor(deps: HeartbeatDeps, role: Role, id: string) {
    this.#deps = deps;
    this.#role = role;
    this.id = id;
  }

  /** Writes the row and takes over the leases of silent processes; then beat() every HEARTBEAT_MS (a periodic job, service.ts). */
  async start(): Promise<void> {
    const now = this.#deps.clock();
    await deleteProcessesSeenBefore(this.#deps.db, now - FORGET_AFTER_MS);
    await insertProcess(this.#deps.db, { id: this.id, role: this.#role, pid: process.pid, host: hostname(), startedAt: now, lastSeenAt: now });
    // A process that starts has seen no outage: it may judge others at once.
    this.#landingSince = now - SILENT_AFTER_MS;
    this.#firstTakeover = this.#takeOver(now);
  }

  /** Removes the row (after the periodic job has stopped: no beat writes it again). */
  async stop(): Promise<void> {
    await this.#firstTakeover;
    await deleteProcess(this.#deps.db, this.id).catch((error: unknown) => this.#deps.logger.warn({ err: error }, 'heartbeat row not removed'));
  }

  /** One beat: refreshes the row, then takes over the leases of processes silent for SILENT_AFTER_MS. Never rejects. */
  async beat(): Promise<void> {
    const now = this.#deps.clock();
    try {
      await touchProcess(this.#deps.db, this.id, now);
    } catch (error) {
      this.#landingSince = undefined;
      if (!this.#failing) this.#deps.logger.warn({ err: error }, 'heartbeat not recorded');
      this.#failing = true;
      return;
    }
    if (this.#failing) this.#deps.logger.info('heartbeat recorded again');
    this.#failing = false;
    this.#landingSince ??= now;
    await this.#takeOver(now);
  }

  async #takeOver(now: number): Promise<void> {
    if (this.#landingSince === undefined || now - this.#landingSince < SILENT_AFTER_MS) return;
    try {
      const taken = await takeOverLeasesOfSilentProcesses(this.#deps.db, now - SILENT_AFTER_MS, now);
      for (const silent of taken.processes) {
        this.#deps.logger.warn({ process: silent.id, pid: silent.pid, host: silent.host, silentMs: now - silent.lastSeenAt },
          'took over the leases of a process whose heartbeat stopped');
      }
      if (taken.outbox + taken.webhooks + taken.simulatedReports + taken.campaigns + taken.imports + taken.inboundMedia > 0) {
        this.#deps.logger.warn(
          { outbox: taken.outbox, webhooks: taken.webhooks, simulatedReports: taken.simulatedReports, campaigns: taken.campaigns, imports: taken.imports, inboundMedia: taken.inboundMedia },
          'leases taken over: those jobs are tried again now',
        );
        this.#deps.onTakeover?.();
      }
    } catch (error) {
      this.#deps.logger.warn({ err: error }, 'lease takeover not done; the next beat tries again');
    }
  }
}
