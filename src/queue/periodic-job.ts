import type { Logger } from 'pino';
import type { ErrorSource, Metrics } from '../metrics/registry.ts';

// The engine's second kind of job (the first is a lease queue, queue/lease-loop.ts): work
// that runs every so often on a timer, with no table of jobs to lease. The retention sweep
// (app/retention-sweep.ts), the process heartbeat (app/process-heartbeat.ts), the delivery
// hold's watch (app/delivery-hold.ts) and the SQLite checkpoint thread's beat
// (store/wal-checkpointer.ts) are periodic jobs; their bodies stay with their logic, only
// the timing is here. This is the one place herald calls setInterval (besides the SMPP
// session's enquire_link, a per-socket protocol timer).

/** A job that runs every `everyMs`. */
export interface PeriodicJob {
  /** Named in the log line of a turn that threw: `retention`, `heartbeat`, … */
  readonly name: string;
  readonly everyMs: number;
  /**
   * One turn. `signal` is aborted by stop(): a long turn (the retention sweep's batches)
   * ends early at its next check. A turn still running when the next is due is not
   * overtaken: that tick is skipped.
   */
  run(signal: AbortSignal): Promise<void> | void;
}

export interface PeriodicJobDeps {
  readonly logger: Logger;
  /** Counts a turn that threw (a bug: a job's body handles the failures it expects), under `errorSource`. */
  readonly metrics?: Pick<Metrics, 'unexpectedError'>;
  readonly errorSource?: ErrorSource;
}

/** A periodic job on its timer. */
export interface ScheduledJob {
  /** A turn now, or the one running; resolves when it ends (never rejects). */
  runNow(): Promise<void>;
  /** No more turns; aborts the running one's signal and waits for it to end. */
  stop(): Promise<void>;
}

export interface ScheduleOptions {
  /** Runs a first turn at once rather than after `everyMs` (default false). */
  readonly runAtStart?: boolean;
}

/**
 * Starts `job` on its timer. The timer does not keep the process alive (an idle process
 * exits when its server closes), and an exception of a turn is logged and counted, never
 * thrown: the next tick runs as usual.
 */
export function schedulePeriodic(job: PeriodicJob, deps: PeriodicJobDeps, options: ScheduleOptions = {}): ScheduledJob {
  const abort = new AbortController();
  let running: Promise<void> | undefined;
  const turn = (): Promise<void> => {
    if (running !== undefined) return running;
    if (abort.signal.aborted) return Promise.resolve();
    running = (async () => {
      try {
        await job.run(abort.signal);
      } catch (error) {
        deps.logger.error({ err: error, job: job.name }, 'periodic job failed; its next turn runs as usual');
        if (deps.errorSource !== undefined) deps.metrics?.unexpectedError(deps.errorSource);
      }
    })().finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(() => void turn(), job.everyMs);
  timer.unref();
  if (options.runAtStart === true) void turn();
  return {
    runNow: turn,
    async stop() {
      clearInterval(timer);
      abort.abort();
      await running;
    },
  };
}

/**
 * `schedulePeriodic` as a bare timer, `(everyMs, run) → { stop }`, for a layer that may
 * not import the engine (store/wal-checkpointer.ts: the SQLite checkpoint thread's ticks).
 */
export function repeatEvery(name: string, deps: PeriodicJobDeps): (everyMs: number, run: () => void) => { stop(): Promise<void> } {
  return (everyMs, run) => schedulePeriodic({ name, everyMs, run }, deps);
}
