import type { Logger } from 'pino';
import type { DialectCapabilities } from '../store/dialect.ts';

// The one loop of herald's lease queues, one per leased table: the outbox (messages to
// peers, queue/outbox/worker.ts), the webhook queue (events to receivers,
// queue/webhooks/dispatcher.ts), campaigns (queue/campaigns/), contact imports
// (queue/imports/) and the simulator's reports (queue/simulated-reports/). A queue says
// how to lease due jobs and how to deliver one; the loop decides when. Each queue's class
// extends LeaseLoop: its start/wake/stop/drain and readiness (lastTurnAt, pollMs) are the
// loop's, written once here. Periodic jobs, the engine's other kind, are queue/periodic-job.ts.

/**
 * What a queue gives the loop. Every write of a queue is conditioned on the lease it
 * took (the queue's own SQL, in view in its claim and record modules), so the loop
 * never has to be right about timing for the data to stay right.
 */
export interface LeaseQueue<Lane extends string, Job> {
  /** Named in the loop's log lines: `outbox`, `webhook`. */
  readonly name: string;
  /** Lanes keep their own slots, so a slow peer of one lane never holds the slots of another (the outbox: one per channel). */
  readonly lanes: readonly Lane[];
  /** Releases every lease of the queue (crash recovery of a single server process); returns how many were held. */
  releaseAllLeases(): Promise<number>;
  /**
   * One unit of work for `lane`: writes whatever the queue holds unwritten (see
   * `unwritten`), then leases up to `limit` due jobs (0: none) and returns them.
   */
  claim(lane: Lane, limit: number): Promise<readonly Job[]>;
  /** Delivers one job and records (or keeps for the next claim) its outcome; never rejects. */
  deliver(job: Job): Promise<void>;
  /**
   * Outcomes finished but not yet written: a queue that writes them with its next claim
   * (the webhook queue, one commit per step) says how many wait; one that writes each
   * outcome as it comes (the outbox) always 0.
   */
  unwritten(lane: Lane): number;
  /** Called by start() before the loop runs (a queue that resets what its last stop() set). */
  starting?(): void;
  /** Called by stop() before anything else: the queue ends the work in hand early (a campaign after its batch). */
  stopping?(): void;
  /** Called by close() after stop(): releases what the queue holds open (kept-alive sockets). */
  close?(): void;
}

export interface LeaseLoopOptions {
  /** Largest claim of one statement. */
  readonly batchSize: number;
  /** Jobs in flight per lane. */
  readonly concurrency: number;
  /** Fallback poll when nobody calls wake(): retries falling due, leases expiring, rows written by other processes. */
  readonly pollMs: number;
  /** Release every lease at start (DialectCapabilities.singleServerProcess: no other process can hold one). */
  readonly recoverLeasesAtStart: boolean;
}

export interface LeaseLoopDeps {
  readonly logger: Logger;
  readonly clock: () => number;
  /**
   * True while delivery is held (app/delivery-hold.ts): the loop keeps turning and writes
   * outcomes it holds, but leases nothing new. Absent: never held.
   */
  readonly held?: () => boolean;
}

/**
 * A queue's loop settings from its own: its slots and poll; leases recovered at start on
 * a single server process; its logger, clock and delivery hold.
 */
export function loopSettings(
  slots: Pick<LeaseLoopOptions, 'batchSize' | 'concurrency' | 'pollMs'>,
  deps: { readonly capabilities: DialectCapabilities; readonly logger: Logger; readonly clock: () => number; readonly held?: (() => boolean) | undefined },
): [LeaseLoopOptions, LeaseLoopDeps] {
  const { batchSize, concurrency, pollMs } = slots;
  return [
    { batchSize, concurrency, pollMs, recoverLeasesAtStart: deps.capabilities.singleServerProcess },
    { logger: deps.logger, clock: deps.clock, ...(deps.held === undefined ? {} : { held: deps.held }) },
  ];
}

/**
 * The lease loop. Each lane has `concurrency` slots; the loop leases due jobs of a lane
 * while it has free slots and starts them without waiting for one another. Modes:
 *  - idle: no lane named; sleeps until wake() (a commit of this process names every
 *    lane, a finished job its own) or the poll timer (every lane);
 *  - stepping: for each named lane, one claim (queue.claim: the waiting outcomes
 *    written, then due jobs leased into the free slots). It first lets the event loop
 *    turn once, so the answers and commits of that turn go into one step. While jobs
 *    are in flight a lane refills in batches (a quarter of its slots), which keeps
 *    claims few and large; a claim that came back full names its lane again;
 *  - stopping (stop()): claims nothing more, waits for the jobs in flight (each bounded
 *    by its own time-out) and writes their outcomes; a lease whose job never finished
 *    expires and another process takes the job over;
 *  - backing off: a step that failed (the store away: a restart, a lost connection) is
 *    tried again after 250 ms, doubling up to 5 s (or the poll), one log line per outage;
 *  - recovering (start(), when recoverLeasesAtStart): a single server process (holding
 *    the SQLite store's serving lock, store/serving-lock.ts) frees the leases a previous
 *    run left behind, since nothing else can hold them. On PostgreSQL the leases of a
 *    process whose heartbeat stopped are taken over instead (store/lease-takeover.ts).
 * drain() steps without start() until nothing is due, in flight or unwritten: tests and
 * benchmarks drive a queue by hand with it.
 */
export class LeaseLoop<Lane extends string, Job> {
  readonly #queue: LeaseQueue<Lane, Job>;
  readonly #options: LeaseLoopOptions;
  readonly #logger: Logger;
  readonly #clock: () => number;
  readonly #held: () => boolean;
  #lastTurnAt: number | undefined;
  readonly #inFlight: Map<Lane, Set<Promise<void>>>;
  /** Lanes that may have due jobs or unwritten outcomes. */
  readonly #pending = new Set<Lane>();
  #running = false;
  #loop: Promise<void> | undefined;
  /** start()'s release of old leases: drain() waits for it, so a lease it takes is not released under it. */
  #recovery: Promise<void> = Promise.resolve();
  #wakeUp: (() => void) | undefined;
  /** Ends a backoff pause early, for stop(). */
  #stopWaiter: (() => void) | undefined;
  /** Steps run one at a time (the loop's, drain()'s and stop()'s). */
  #steps: Promise<unknown> = Promise.resolve();

  /** The fallback poll: /readyz judges the loop stalled after ten of them without a turn (queue/loop-readiness.ts). */
  readonly pollMs: number;

  constructor(queue: LeaseQueue<Lane, Job>, options: LeaseLoopOptions, deps: LeaseLoopDeps) {
    this.pollMs = options.pollMs;
    this.#queue = queue;
    this.#options = options;
    this.#logger = deps.logger;
    this.#clock = deps.clock;
    this.#held = deps.held ?? (() => false);
    this.#inFlight = new Map(queue.lanes.map((lane) => [lane, new Set()]));
  }

  start(): void {
    if (this.#running) return;
    this.#queue.starting?.();
    this.#running = true;
    this.#recovery = this.#recoverLeases();
    this.#loop = this.#recovery.then(() => this.#run());
  }

  /**
   * When the loop last began a turn (the clock given): at least once per poll interval
   * while it runs, so a value much older than that means it is stuck (a claim that never
   * returns) or stopped. Undefined before its first turn.
   */
  lastTurnAt(): number | undefined {
    return this.#lastTurnAt;
  }

  /** Something may be due or finished in `lane` (every lane when none is named). */
  wake(lane?: Lane): void {
    if (lane === undefined) for (const l of this.#queue.lanes) this.#pending.add(l);
    else this.#pending.add(lane);
    this.#wakeUp?.();
  }

  /** Claims nothing more, waits for the jobs in flight and writes their outcomes; start() resumes. */
  async stop(): Promise<void> {
    this.#queue.stopping?.();
    this.#running = false;
    this.#wakeUp?.();
    this.#stopWaiter?.();
    await this.#loop;
    await this.#flush();
  }

  /** stop(), then lets go of what the queue holds open; for the end of a process. */
  async close(): Promise<void> {
    await this.stop();
    this.#queue.close?.();
  }

  /** Steps until nothing is due, in flight or unwritten; returns the jobs started. */
  async drain(): Promise<number> {
    await this.#recovery;
    let total = 0;
    for (;;) {
      const started = await this.#step(this.#queue.lanes, true);
      total += started;
      // Jobs the running loop had in flight held the slots of this step: once they end, step again.
      const waited = this.#inFlightCount() > started;
      await this.#settled();
      if (started === 0 && !waited && !this.#anyUnwritten()) return total;
    }
  }

  async #recoverLeases(): Promise<void> {
    if (!this.#options.recoverLeasesAtStart) return;
    try {
      const released = await this.#queue.releaseAllLeases();
      if (released > 0) this.#logger.warn({ queue: this.#queue.name, released }, 'released the leases of a previous run that did not stop cleanly; those jobs are tried again');
    } catch (error) {
      this.#logger.error({ err: error, queue: this.#queue.name }, 'could not release old leases; they will expire');
    }
  }

  async #run(): Promise<void> {
    this.wake(); // jobs may be due from before this start
    // Consecutive failed steps, and when the first of them failed (an outage of the store).
    let failures = 0;
    let failingSince = 0;
    while (this.#running) {
      this.#lastTurnAt = this.#clock();
      if (this.#pending.size === 0) await this.#idle();
      if (!this.#running) break;
      await new Promise((resolve) => setImmediate(resolve));
      const lanes = [...this.#pending];
      this.#pending.clear();
      try {
        await this.#step(lanes, false);
        if (failures > 0) this.#logger.info({ queue: this.#queue.name, failedSteps: failures, outageMs: this.#clock() - failingSince }, 'claims succeed again');
        failures = 0;
      } catch (error) {
        // A store hiccup must not end the loop. While it lasts, the loop backs off
        // (every finished job and commit would wake it into another failing claim) and
        // says so once; the lanes stay named for the step after the pause.
        for (const lane of lanes) this.#pending.add(lane);
        if (failures === 0) {
          failingSince = this.#clock();
          this.#logger.error({ err: error, queue: this.#queue.name }, 'claim failed; retrying with backoff');
        }
        failures += 1;
        await this.#pause(backoffMs(failures, this.#options.pollMs));
      }
    }
  }

  /** Sleeps `ms`, or less when stop() is called. */
  #pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.#stopWaiter = done;
    }).finally(() => {
      this.#stopWaiter = undefined;
    });
  }

  /** Waits for the jobs in flight, writing their outcomes, without claiming more. */
  async #flush(): Promise<void> {
    while (this.#inFlightCount() > 0 || this.#anyUnwritten()) {
      await this.#settled();
      if (this.#anyUnwritten()) await this.#step(this.#queue.lanes, false, false);
    }
  }

  #step(lanes: readonly Lane[], anyFreeSlot: boolean, claim = true): Promise<number> {
    const step = this.#steps.then(() => this.#stepNow(lanes, anyFreeSlot, claim));
    this.#steps = step.catch(() => {});
    return step;
  }

  async #stepNow(lanes: readonly Lane[], anyFreeSlot: boolean, claim: boolean): Promise<number> {
    const { batchSize, concurrency } = this.#options;
    const refillAt = anyFreeSlot ? 1 : Math.max(1, Math.min(batchSize, Math.ceil(concurrency / 4)));
    let started = 0;
    for (const lane of lanes) {
      const inFlight = this.#inFlight.get(lane)!;
      const free = concurrency - inFlight.size;
      const claiming = claim && free > 0 && !this.#held() && (inFlight.size === 0 || free >= refillAt);
      if (!claiming && this.#queue.unwritten(lane) === 0) continue;
      const limit = claiming ? Math.min(free, batchSize) : 0;
      const jobs = await this.#queue.claim(lane, limit);
      for (const job of jobs) {
        const delivery = this.#queue.deliver(job).finally(() => {
          inFlight.delete(delivery);
          this.wake(lane);
        });
        inFlight.add(delivery);
      }
      if (limit > 0 && jobs.length === limit) this.#pending.add(lane);
      started += jobs.length;
    }
    return started;
  }

  #inFlightCount(): number {
    let count = 0;
    for (const set of this.#inFlight.values()) count += set.size;
    return count;
  }

  #anyUnwritten(): boolean {
    return this.#queue.lanes.some((lane) => this.#queue.unwritten(lane) > 0);
  }

  async #settled(): Promise<void> {
    for (;;) {
      const pending = [...this.#inFlight.values()].flatMap((set) => [...set]);
      if (pending.length === 0) return;
      await Promise.allSettled(pending);
    }
  }

  /** Sleeps until wake() or the poll timer; the timer names every lane. */
  #idle(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        for (const lane of this.#queue.lanes) this.#pending.add(lane);
        done();
      }, this.#options.pollMs);
      const done = (): void => {
        clearTimeout(timer);
        this.#wakeUp = undefined;
        resolve();
      };
      this.#wakeUp = done;
    });
  }
}

// After a failed step: 250 ms, doubling up to the poll interval (at least 5 s): an
// outage of a few seconds (a database restart) is resumed from within a second or two
// of its end, a long one costs a claim every few seconds.
const FIRST_BACKOFF_MS = 250;
const LONGEST_BACKOFF_MS = 5000;

function backoffMs(failures: number, pollMs: number): number {
  return Math.min(FIRST_BACKOFF_MS * 2 ** Math.min(failures - 1, 16), Math.max(pollMs, LONGEST_BACKOFF_MS));
}
