import { Worker } from 'node:worker_threads';

// SQLite copies the WAL back into the database file (a checkpoint) inside whichever
// COMMIT takes the WAL past 1,000 pages: that commit then writes up to 4 MB and syncs
// two files on the event loop. Measured here with group-commit-sized transactions, that
// was 60 % of the time of every commit and the p99 of the accept path. So the service's
// connection never checkpoints (`wal_autocheckpoint = 0`) and a worker thread with its
// own connection checkpoints every `intervalMs` instead.
//
// A checkpoint copies frames but the WAL file is only rewound (reused from its start)
// by a write that begins when every frame has been copied, which a busy writer never
// leaves time for. So when the WAL passes `pauseAfterFrames`, the group committer holds
// its next batch (`beforeBatch`) until a checkpoint has copied everything: a pause of a
// few milliseconds per `pauseAfterFrames` pages, instead of a stall every 1,000.

export interface CheckpointerData {
  readonly location: string;
  readonly intervalMs: number;
}

/** What the thread says after each checkpoint: frames in the WAL, and how many of them are in the database file. */
export interface CheckpointReport {
  readonly walFrames: number;
  readonly checkpointed: number;
}

export type CheckpointRequest = 'now' | 'close';

export interface WalCheckpointerOptions {
  readonly intervalMs?: number;
  /** A WAL this long (in pages of 4 KiB) makes the writer wait for a complete checkpoint. */
  readonly pauseAfterFrames?: number;
  /** Called if the thread fails: the connection must then checkpoint for itself again. */
  readonly onFailure: (error: unknown) => void;
}

export interface WalCheckpointer {
  /** Resolves on the thread's first report (the thread takes a moment to start). */
  readonly ready: Promise<void>;
  /** Undefined when the writer may go on; otherwise resolves when it may. */
  beforeBatch(): Promise<void> | undefined;
  close(): Promise<void>;
}

/** How long the writer waits for a complete checkpoint before it goes on regardless. */
const PAUSE_LIMIT_MS = 200;

export function startWalCheckpointer(location: string, options: WalCheckpointerOptions): WalCheckpointer {
  const intervalMs = options.intervalMs ?? 100;
  const pauseAfterFrames = options.pauseAfterFrames ?? 16_384;
  const worker = new Worker(new URL('./wal-checkpoint-worker.ts', import.meta.url), {
    workerData: { location, intervalMs } satisfies CheckpointerData,
    execArgv: [],
    // It holds one prepared statement: a small heap keeps the service's idle memory down.
    resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 },
  });
  // An idle service must be able to exit; close() ends the thread properly.
  worker.unref();

  let last: CheckpointReport = { walFrames: 0, checkpointed: 0 };
  let pause: { promise: Promise<void>; open: () => void } | undefined;
  let failed = false;

  const openPause = (): void => {
    pause?.open();
    pause = undefined;
  };
  let started = (): void => {};
  const ready = new Promise<void>((resolve) => (started = resolve));
  worker.on('message', (report: CheckpointReport) => {
    started();
    last = report;
    if (pause === undefined) return;
    // The writer is held, so the next checkpoint finds no new frames; a batch in flight may have added some.
    if (report.checkpointed >= report.walFrames) openPause();
    else worker.postMessage('now' satisfies CheckpointRequest);
  });
  worker.on('error', (error) => {
    failed = true;
    started();
    openPause();
    options.onFailure(error);
  });

  return {
    ready,
    beforeBatch() {
      if (failed) return undefined;
      if (pause !== undefined) return pause.promise;
      if (last.walFrames < pauseAfterFrames) return undefined;
      let open = (): void => {};
      const promise = new Promise<void>((resolve) => (open = resolve));
      const limit = setTimeout(openPause, PAUSE_LIMIT_MS);
      pause = { promise: promise.then(() => clearTimeout(limit)), open };
      // Until the next report says otherwise, assume the WAL is rewound by the next write.
      last = { walFrames: 0, checkpointed: 0 };
      worker.postMessage('now' satisfies CheckpointRequest);
      return pause.promise;
    },
    async close() {
      openPause();
      if (failed) return;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      // Whoever awaits the close keeps the process alive until the thread has closed its connection.
      worker.ref();
      worker.postMessage('close' satisfies CheckpointRequest);
      await exited;
    },
  };
}
