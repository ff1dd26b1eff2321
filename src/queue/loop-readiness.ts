// /readyz of a process that runs loops (the outbox worker, the webhook dispatcher, the
// campaign runner): each loop begins a turn at least once per poll interval while it
// runs, so one that has not for ten intervals is stuck (a claim that never returns) or
// stopped, and the process should get no traffic until it turns again.

// The loop turns at least once per poll; this many polls without a turn is a stuck or stopped loop.
const STALLED_AFTER_POLLS = 10;
// A loop polling faster than this is judged on it: a busy machine delays any turn by a
// few hundred milliseconds, which must not make a process unready.
const SHORTEST_POLL_MS = 1000;

/** A running loop as readiness sees it. */
export interface WatchedLoop {
  /** Named in the 503's detail: `the ${what} has not run for …`. */
  readonly what: string;
  readonly pollMs: number;
  lastTurnAt(): number | undefined;
}

/** Why /readyz should fail for this process (the first stalled loop), or undefined while every loop turns. */
export function stalledLoop(loops: readonly WatchedLoop[], now: number): string | undefined {
  for (const loop of loops) {
    const last = loop.lastTurnAt();
    const limitMs = STALLED_AFTER_POLLS * Math.max(loop.pollMs, SHORTEST_POLL_MS);
    if (last === undefined) return `the ${loop.what} has not started`;
    if (now - last > limitMs) return `the ${loop.what} has not run for ${Math.round((now - last) / 1000)} s (limit ${limitMs / 1000} s)`;
  }
  return undefined;
}
