import { StatementSync } from 'node:sqlite';
import pg from 'pg';

// Time spent in each SQL statement of this process (node:sqlite runs them
// synchronously on the event loop, so this is event-loop time). Installed only with
// --profile: it wraps StatementSync's run/all/get/iterate for the whole process, and
// pg's Client.query: on PostgreSQL each call is one round trip, counted, with its wall
// time from the call to the answer (the server's work, the wire and any queueing on the
// connection; concurrent round trips overlap, so their times add up past the run's).

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
  installPgTiming();
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

/** The pg driver's round trips (promise form, as Kysely and the notifier call it), keyed `pg: <text>`. */
function installPgTiming(): void {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function timed(this: pg.Client, ...args: unknown[]): unknown {
    const [config] = args;
    const text = typeof config === 'string' ? config : (config as { text?: unknown } | null)?.text;
    const started = performance.now();
    const result = original.apply(this, args);
    if (!recording || typeof text !== 'string' || !(result instanceof Promise)) return result;
    const note = (): void => {
      const key = `pg: ${text}`;
      const entry = entries.get(key) ?? { count: 0, ms: 0 };
      entry.count += 1;
      entry.ms += performance.now() - started;
      entries.set(key, entry);
    };
    result.then(note, note);
    return result;
  };
}

export interface SqlTiming {
  readonly sql: string;
  readonly count: number;
  readonly ms: number;
}

export function sqlTimings(): SqlTiming[] {
  return [...entries].map(([sql, e]) => ({ sql, count: e.count, ms: e.ms })).sort((a, b) => b.ms - a.ms);
}

/** A table of the statements that took the most time; with `per`, also how many of each per unit of work (round trips per event). */
export function formatSqlTimings(timings: readonly SqlTiming[], top = 15, per?: { readonly count: number; readonly unit: string }): string {
  const total = timings.reduce((sum, t) => sum + t.ms, 0);
  const count = timings.reduce((s, t) => s + t.count, 0);
  const lines = [`SQL time in the herald process: ${(total / 1000).toFixed(2)} s in ${count} statements${per === undefined ? '' : ` (${(count / per.count).toFixed(2)} per ${per.unit})`}`];
  for (const t of timings.slice(0, top)) {
    const sql = t.sql.replace(/\s+/g, ' ');
    const perUnit = per === undefined ? '' : ` ${(t.count / per.count).toFixed(3).padStart(6)}/${per.unit}`;
    lines.push(`  ${(t.ms).toFixed(0).padStart(6)} ms ${String(t.count).padStart(7)}×${perUnit} ${(t.ms / t.count).toFixed(3).padStart(7)} ms  ${sql.length > 150 ? sql.slice(0, 147) + '...' : sql}`);
  }
  return lines.join('\n');
}
