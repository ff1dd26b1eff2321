// A job's outcome that the store could not take (a lost connection, a database
// restart) is written again on a new connection until it is, or until the job's lease
// is about to run out: past that, another process may take the job over, and the
// outcome's write, conditioned on the lease, would change nothing anyway. An outcome
// written late is the difference between a restart that delays a message and one
// that sends it twice.

export interface WriteRetryOptions {
  /** How long the writes may be tried, from the first failure (the lease's time left, less a margin). */
  readonly windowMs: number;
  /** Called once, at the first failure. */
  readonly onFirstFailure: (error: unknown) => void;
  /** True when the caller stops trying sooner (its process is stopping). */
  readonly giveUp?: () => boolean;
}

const FIRST_PAUSE_MS = 250;
const LONGEST_PAUSE_MS = 5000;

/** Runs `write` until it resolves; rethrows its last error once `windowMs` has passed. */
export async function writeWithRetry<T>(write: () => Promise<T>, options: WriteRetryOptions): Promise<T> {
  // Measured on the monotonic clock: an injected clock may stand still in tests.
  const started = performance.now();
  for (let failures = 0; ; failures++) {
    try {
      return await write();
    } catch (error) {
      if (failures === 0) options.onFirstFailure(error);
      const pause = Math.min(FIRST_PAUSE_MS * 2 ** Math.min(failures, 16), LONGEST_PAUSE_MS);
      if (performance.now() - started + pause > options.windowMs || options.giveUp?.() === true) throw error;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}
