import type { Logger } from 'pino';
import type { Db, Executor } from '../../store/database.ts';
import type { DialectCapabilities } from '../../store/dialect.ts';
import { transactionPerWork, type Committer } from '../../store/group-commit.ts';
import type { SimulatedReport } from '../../store/simulated-reports.ts';
import { claimDueReports, releaseAllReportLeases, removeLeasedReport } from './claim.ts';
import { LeaseLoop, loopSettings, type LeaseQueue } from '../lease-loop.ts';

// The simulator's later reports (docs/sandbox.md) as a queue on the lease loop: due
// reports are leased (head of line per message), and each is removed and recorded in
// one unit of work conditioned on its lease, so a report is recorded once, by one
// process, and one left by a process that stopped is recorded by the next.

export interface SimulatedReportOptions {
  readonly owner: string;
  readonly leaseMs: number;
  /** How often due reports are looked for: they fall due on their own time, nobody wakes the queue. */
  readonly pollMs: number;
}

interface ReportDeps {
  readonly db: Db;
  readonly commit?: Committer;
  readonly clock: () => number;
  readonly capabilities: DialectCapabilities;
  readonly logger: Logger;
  /** Writes what a report means (app/record-simulated-step.ts), in the unit of work that removes it. */
  readonly record: (tx: Executor, report: SimulatedReport, at: number) => Promise<void>;
  /** After a commit that recorded events (their webhook deliveries are due). */
  readonly onRecorded?: () => void;
}

const LANES = ['simulator'] as const;

/** Largest claim and reports in flight: recording one is a short unit of work, no peer is waited on. */
export const SIMULATED_REPORT_SLOTS = { batchSize: 64, concurrency: 16 } as const;

export class SimulatedReportQueue extends LeaseLoop<'simulator', SimulatedReport> {
  constructor(deps: ReportDeps, options: SimulatedReportOptions) {
    super(new ReportQueue(deps, options), ...loopSettings({ ...SIMULATED_REPORT_SLOTS, pollMs: options.pollMs }, deps));
  }
}

/** What the loop asks of the simulator's reports: the due ones, and each recorded in the unit of work that removes it. */
class ReportQueue implements LeaseQueue<'simulator', SimulatedReport> {
  readonly name = 'simulator';
  readonly lanes = LANES;
  readonly #deps: ReportDeps;
  readonly #commit: Committer;
  readonly #options: SimulatedReportOptions;

  constructor(deps: ReportDeps, options: SimulatedReportOptions) {
    this.#deps = deps;
    this.#options = options;
    this.#commit = deps.commit ?? transactionPerWork(deps.db);
  }

  releaseAllLeases(): Promise<number> {
    return releaseAllReportLeases(this.#deps.db);
  }

  claim(_lane: 'simulator', limit: number): Promise<readonly SimulatedReport[]> {
    if (limit === 0) return Promise.resolve([]);
    const { owner, leaseMs } = this.#options;
    return this.#commit.run((tx) => claimDueReports(tx, this.#deps.capabilities, { owner, now: this.#deps.clock(), leaseMs, limit }));
  }

  unwritten(): number {
    return 0;
  }

  async deliver(report: SimulatedReport): Promise<void> {
    try {
      const recorded = await this.#commit.run(async (tx) => {
        if (!(await removeLeasedReport(tx, report.id, this.#options.owner))) return false;
        await this.#deps.record(tx, report, this.#deps.clock());
        return true;
      });
      if (recorded) this.#deps.onRecorded?.();
    } catch (error) {
      // The store failed: the lease expires and the report is recorded then.
      this.#deps.logger.error({ err: error, msgid: report.messageId, step: report.step }, 'could not record a simulated report');
    }
  }
}
