import { StatementSync } from 'node:sqlite';

// Time spent in each SQL statement of this process (node:sqlite runs them
// synchronously on the event loop, so this is event-loop time). Installed only with
// --profile: it wraps StatementSync's run/all/get/iterate for the whole process.

interface Entry {
  count: number;
  ms: number;
}

const entries = new Map<string, Entry>();
/** Statement → its SQL text: reading `sourceSQL` on every call would be measurable itself. */
const texts = new WeakMap<StatementSync, string>();
let recording = true;

/** Pauses or resumes the recording (the accept benchmark records its measured loads only); `reset` forgets what was recorded. */
export function recordSqlTiming(on: boolean, reset = false): void {
  recording = on;
  if (reset) entries.clear();
}

export function installSqlTiming(): void {
  const proto = StatementSync.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const method of ['run', 'all', 'get', 'iterate'] as const) {
    const original = proto[method];
    if (original === undefined) continue;
    proto[method] = function timed(this: StatementSync, ...args: unknown[]): unknown {
      const started = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        if (recording) {
          let key = texts.get(this);
          if (key === undefined) texts.set(this, (key = this.sourceSQL));
          const entry = entries.get(key) ?? { count: 0, ms: 0 };
          entry.count += 1;
          entry.ms += performance.now() - started;
          entries.set(key, entry);
        }
      }
    };
  }
}

export interface SqlTiming {
  readonly sql: string;
  readonly count: number;
  readonly ms: number;
}

export function sqlTimings(): SqlTiming[] {
  return [...entries].map(([sql, e]) => ({ sql, count: e.count, ms: e.ms })).sort((a, b) => b.ms - a.ms);
}

/** A table of the statements that took the most time. */
export function formatSqlTimings(timings: readonly SqlTiming[], top = 15): string {
  const total = timings.reduce((sum, t) => sum + t.ms, 0);
  const lines = [`SQL time in the herald process: ${(total / 1000).toFixed(2)} s in ${timings.reduce((s, t) => s + t.count, 0)} statements`];
  for (const t of timings.slice(0, top)) {
    const sql = t.sql.replace(/\s+/g, ' ');
    lines.push(`  ${(t.ms).toFixed(0).padStart(6)} ms ${String(t.count).padStart(7)}× ${(t.ms / t.count).toFixed(3).padStart(7)} ms  ${sql.length > 150 ? sql.slice(0, 147) + '...' : sql}`);
  }
  return lines.join('\n');
}
