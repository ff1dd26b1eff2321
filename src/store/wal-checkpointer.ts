import { Worker } from 'node:worker_threads';

// SQLite copies the WAL back into the database file (a checkpoint) inside whichever
// COMMIT takes the WAL past 1,000 pages: that commit then writes up to 4 MB and syncs
// two files on the event loop. Under a steady stream of group-commit batches that was
// most of the time of a commit and the p99 of the accept path. So while batches come
// steadily, the service's connection stops checkpointing (`wal_autocheckpoint = 0`) and a
// worker thread with its own connection checkpoints every `intervalMs` instead. A thread
// costs about 20 MB of memory, so it is started only under load and ended when the
// store has been idle for `idleMs`; then the connection checkpoints for itself again.
// The thread's ticks are a periodic job of the engine (`repeat`, queue/periodic-job.ts,
// passed in by service.ts): the main thread tells it 'now' every `intervalMs`.
//
// A checkpoint copies frames, but the WAL file is only rewound (reused from its start)
// by a write that begins when every frame has been copied, which a busy writer never
// leaves time for. So when the WAL passes `pauseAfterFrames`, the group committer holds
// its next batch (`beforeBatch`) until a checkpoint has copied everything: a pause of a
// few milliseconds per `pauseAfterFrames` pages, instead of a stall every 1,000.

export interface CheckpointerData {
  readonly location: string;
}

/** Runs `run` every `everyMs` until stop(): the engine's periodic jobs (queue/periodic-job.ts schedulePeriodic). */
export type RepeatEvery = (everyMs: number, run: () => void) => { stop(): Promise<void> };

/** What the thread says after each checkpoint: frames in the WAL, and how many of them are in the database file. */
export interface CheckpointReport {
  readonly walFrames: number;
  readonly checkpointed: number;
}

export type CheckpointRequest = 'now' | 'close';

export interface WalCheckpointerOptions {
  /** Sets the service's connection's `wal_autocheckpoint` (0: never; SQLite's default is 1,000 pages). */
  readonly setAutocheckpoint: (pages: number) => void;
  /** Called if the thread fails; the connection then checkpoints for itself for good. */
  readonly onFailure: (error: unknown) => void;
  /** The timer of the thread's checkpoints. */
  readonly repeat: RepeatEvery;
  readonly intervalMs?: number;
  /** A WAL this long (in pages of 4 KiB) makes the writer wait for a complete checkpoint. */
  readonly pauseAfterFrames?: number;
  /** Batches within one second that start the thread (0: the first batch does). */
  readonly startAtBatchesPerSecond?: number;
  /** The thread ends after the WAL has not moved for this long. */
  readonly idleMs?: number;
}

export interface WalCheckpointer {
  /**
   * Called before every group-commit batch. Undefined when the batch may start;
   * otherwise resolves when it may.
   */
  beforeBatch(): Promise<void> | undefined;
  /** Resolves when the thread has taken over the checkpoints (started at the first batch with `startAtBatchesPerSecond: 0`). */
  running(): Promise<void>;
  close(): Promise<void>;
}

export const SQLITE_AUTOCHECKPOINT_PAGES = 1000;
/** How often the thread checkpoints while it runs (intervalMs's default). */
export const WAL_CHECKPOINT_MS = 100;
/** How long the writer waits for a complete checkpoint before it goes on regardless. */
const PAUSE_LIMIT_MS = 200;

interface Thread {
  readonly worker: Worker;
  /** Tells the thread 'now' every intervalMs while it runs. */
  readonly ticks: { stop(): Promise<void> };
  readonly ready: Promise<void>;
  last: CheckpointReport;
  lastMoved: number;
}

export function startWalCheckpointer(location: string, options: WalCheckpointerOptions): WalCheckpointer {
  const intervalMs = options.intervalMs ?? WAL_CHECKPOINT_MS;
  const pauseAfterFrames = options.pauseAfterFrames ?? 16_384;
  const startAt = options.startAtBatchesPerSecond ?? 50;
  const idleMs = options.idleMs ?? 10_000;

  let thread: Thread | undefined;
  let failed = false;
  let closed = false;
  let pause: { promise: Promise<void>; open: () => void } | undefined;
  let windowStart = 0;
  let batchesInWindow = 0;

  const openPause = (): void => {
    pause?.open();
    pause = undefined;
  };

  const stop = async (current: Thread): Promise<void> => {
    if (thread !== current) return;
    thread = undefined;
    void current.ticks.stop();
    openPause();
    // The connection checkpoints again before the thread lets go.
    if (!failed) options.setAutocheckpoint(SQLITE_AUTOCHECKPOINT_PAGES);
    const exited = new Promise<void>((resolve) => current.worker.once('exit', () => resolve()));
    // Whoever awaits the stop keeps the process alive until the thread has closed its connection.
    current.worker.ref();
    current.worker.postMessage('close' satisfies CheckpointRequest);
    await exited;
  };

  const start = (): Thread => {
    const worker = new Worker(new URL('./wal-checkpoint-worker.ts', import.meta.url), {
      workerData: { location } satisfies CheckpointerData,
      execArgv: [],
      // It holds one prepared statement: a small heap keeps its memory down.
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 },
    });
    // An idle service must be able to exit; stop() ends the thread properly.
    worker.unref();
    let started = (): void => {};
    const ticks = options.repeat(intervalMs, () => worker.postMessage('now' satisfies CheckpointRequest));
    const current: Thread = { worker, ticks, ready: new Promise<void>((resolve) => (started = resolve)), last: { walFrames: 0, checkpointed: 0 }, lastMoved: Date.now() };
    worker.on('message', (report: CheckpointReport) => {
      if (thread !== current) return;
      if (report.walFrames !== current.last.walFrames || report.checkpointed !== current.last.checkpointed) current.lastMoved = Date.now();
      current.last = report;
      // From its first report on, the thread does the checkpoints.
      options.setAutocheckpoint(0);
      started();
      if (pause !== undefined) {
        // The writer is held, so the next checkpoint finds no new frames; a batch in flight may have added some.
        if (report.checkpointed >= report.walFrames) openPause();
        else worker.postMessage('now' satisfies CheckpointRequest);
      } else if (Date.now() - current.lastMoved > idleMs) {
        void stop(current);
      }
    });
    worker.on('error', (error) => {
      failed = true;
      void ticks.stop();
      if (thread === current) thread = undefined;
      started();
      openPause();
      options.setAutocheckpoint(SQLITE_AUTOCHECKPOINT_PAGES);
      options.onFailure(error);
    });
    return current;
  };

  return {
    beforeBatch() {
      if (failed || closed) return undefined;
      if (thread === undefined) {
        const now = Date.now();
        if (now - windowStart >= 1000) {
          windowStart = now;
          batchesInWindow = 0;
        }
        batchesInWindow += 1;
        if (batchesInWindow >= startAt) thread = start();
        return undefined;
      }
      thread.lastMoved = Date.now();
      if (pause !== undefined) return pause.promise;
      if (thread.last.walFrames < pauseAfterFrames) return undefined;
      let open = (): void => {};
      const promise = new Promise<void>((resolve) => (open = resolve));
      const limit = setTimeout(openPause, PAUSE_LIMIT_MS);
      pause = { promise: promise.then(() => clearTimeout(limit)), open };
      // Until the next report says otherwise, assume the WAL is rewound by the next write.
      thread.last = { walFrames: 0, checkpointed: 0 };
      thread.worker.postMessage('now' satisfies CheckpointRequest);
      return pause.promise;
    },
    running() {
      return thread?.ready ?? Promise.resolve();
    },
    async close() {
      closed = true;
      if (thread !== undefined) await stop(thread);
    },
  };
}
