import { cpus } from 'node:os';
import { parseArgs } from 'node:util';

// What every benchmark script shares: its options, the time budget, and how figures
// are printed (a small table for people, then one JSON line per figure for tools).

export interface Machine {
  readonly cpus: number;
  readonly model: string;
  readonly node: string;
}

export interface Figure {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  readonly conditions: Record<string, unknown>;
}

export interface BenchOptions {
  /** Messages measured (after the warm-up). */
  readonly n: number;
  /** Concurrent HTTP clients posting to herald. */
  readonly clients: number;
  /** Time budget of the whole script, seconds. */
  readonly timeoutS: number;
  /** herald's HERALD_LOG_LEVEL (its stdout goes to /dev/null). */
  readonly logLevel: string;
  /** Sign with DKIM (email only): herald with the sender domain's key, the baseline with an equivalent key. */
  readonly dkim: boolean;
  /** Write a CPU profile of the herald process and print where its time went. */
  readonly profile: boolean;
  /** Which stores herald runs on: SQLite, and PostgreSQL when TEST_POSTGRES_URL is set. */
  readonly db: DatabaseChoice;
  /** Seconds of measured load per level (accept, memory). */
  readonly durationS: number;
  /** Seconds of unmeasured load before each measured one (accept, memory). */
  readonly warmupS: number;
  /** Concurrent connections of each load level (accept; memory loads at the highest). */
  readonly connections: readonly number[];
  /** herald's in-process outbox worker delivers while the load runs (accept, memory). */
  readonly worker: boolean;
  /** Which send operations are loaded (accept). */
  readonly channels: readonly BenchChannel[];
  /** Mobile numbers per request, one measured round each (sms-e2e). */
  readonly numbers: readonly number[];
  /** Rounds of loads on the empty and the full store (big-store). */
  readonly rounds: number;
}

export type DatabaseChoice = 'all' | 'sqlite' | 'postgres';
export const BENCH_CHANNELS = ['email', 'sms', 'whatsapp'] as const;
export type BenchChannel = (typeof BENCH_CHANNELS)[number];

/** What a benchmark takes when a flag is not given; `n` only where it counts messages. */
export interface BenchDefaults {
  readonly n?: number;
  readonly clients: number;
  readonly timeoutS?: number;
  readonly durationS?: number;
  readonly numbers?: readonly number[];
}

const DEFAULT_TIMEOUT_S = 120;
const DEFAULT_DURATION_S = 5;
const DEFAULT_WARMUP_S = 1;
const DEFAULT_CONNECTIONS = [10, 50, 100] as const;
const DEFAULT_ROUNDS = 4;

export function machine(): Machine {
  const list = cpus();
  return { cpus: list.length, model: list[0]?.model.trim() ?? 'unknown', node: process.version };
}

export class UsageError extends Error {
  override name = 'UsageError';
}

/** Flags (`--n 2000`, `--clients 16`, …); BENCH_N stands in for --n. */
export function parseBenchOptions(args: readonly string[], defaults: BenchDefaults): BenchOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      options: {
        n: { type: 'string' },
        clients: { type: 'string' },
        timeout: { type: 'string' },
        'log-level': { type: 'string' },
        dkim: { type: 'string' },
        profile: { type: 'boolean' },
        db: { type: 'string' },
        duration: { type: 'string' },
        warmup: { type: 'string' },
        connections: { type: 'string' },
        worker: { type: 'string' },
        channels: { type: 'string' },
        numbers: { type: 'string' },
        rounds: { type: 'string' },
      },
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const whole = (name: string, raw: string | undefined, fallback: number, min: number): number => {
    if (raw === undefined || raw === '') return fallback;
    if (!/^[0-9]+$/.test(raw) || Number(raw) < min) throw new UsageError(`--${name} must be a whole number ≥ ${min}, got "${raw}"`);
    return Number(raw);
  };
  const onOff = (name: string, raw: string | undefined): boolean => {
    const value = raw ?? 'on';
    if (value !== 'on' && value !== 'off') throw new UsageError(`--${name} must be on or off, got "${value}"`);
    return value === 'on';
  };
  const db = values.db ?? 'all';
  if (db !== 'all' && db !== 'sqlite' && db !== 'postgres') throw new UsageError(`--db must be all, sqlite or postgres, got "${db}"`);
  const connections = values.connections === undefined ? [...DEFAULT_CONNECTIONS] : values.connections.split(',').map((c) => whole('connections', c.trim(), 0, 1));
  const channels = values.channels === undefined ? [...BENCH_CHANNELS] : values.channels.split(',').map((c) => c.trim());
  for (const channel of channels) {
    if (!(BENCH_CHANNELS as readonly string[]).includes(channel)) throw new UsageError(`--channels takes ${BENCH_CHANNELS.join(', ')} (comma-separated), got "${channel}"`);
  }
  const numbers = values.numbers === undefined ? [...(defaults.numbers ?? [1])] : values.numbers.split(',').map((k) => whole('numbers', k.trim(), 0, 1));
  return {
    n: whole('n', values.n ?? process.env.BENCH_N, defaults.n ?? 1, 1),
    clients: whole('clients', values.clients, defaults.clients, 1),
    timeoutS: whole('timeout', values.timeout, defaults.timeoutS ?? DEFAULT_TIMEOUT_S, 1),
    logLevel: values['log-level'] ?? 'info',
    dkim: onOff('dkim', values.dkim),
    profile: values.profile ?? false,
    db,
    durationS: whole('duration', values.duration, defaults.durationS ?? DEFAULT_DURATION_S, 1),
    warmupS: whole('warmup', values.warmup, DEFAULT_WARMUP_S, 0),
    connections: [...new Set(connections)].sort((a, b) => a - b),
    worker: onOff('worker', values.worker),
    channels: channels as BenchChannel[],
    numbers: [...new Set(numbers)].sort((a, b) => a - b),
    rounds: whole('rounds', values.rounds, DEFAULT_ROUNDS, 1),
  };
}

/** The command that reruns a benchmark with the options it ran with (flags at their default left out). */
export function rerunCommand(name: string, options: BenchOptions, defaults: BenchDefaults): string {
  const flags = defaults.n === undefined ? [] : [`--n ${options.n}`];
  if (options.clients !== defaults.clients) flags.push(`--clients ${options.clients}`);
  if (options.timeoutS !== (defaults.timeoutS ?? DEFAULT_TIMEOUT_S)) flags.push(`--timeout ${options.timeoutS}`);
  if (options.logLevel !== 'info') flags.push(`--log-level ${options.logLevel}`);
  if (!options.dkim) flags.push('--dkim off');
  if (options.profile) flags.push('--profile');
  if (options.db !== 'all') flags.push(`--db ${options.db}`);
  if (options.durationS !== (defaults.durationS ?? DEFAULT_DURATION_S)) flags.push(`--duration ${options.durationS}`);
  if (options.warmupS !== DEFAULT_WARMUP_S) flags.push(`--warmup ${options.warmupS}`);
  if (options.connections.join(',') !== DEFAULT_CONNECTIONS.join(',')) flags.push(`--connections ${options.connections.join(',')}`);
  if (!options.worker) flags.push('--worker off');
  if (options.channels.join(',') !== BENCH_CHANNELS.join(',')) flags.push(`--channels ${options.channels.join(',')}`);
  if (options.numbers.join(',') !== (defaults.numbers ?? [1]).join(',')) flags.push(`--numbers ${options.numbers.join(',')}`);
  if (options.rounds !== DEFAULT_ROUNDS) flags.push(`--rounds ${options.rounds}`);
  return `npm run bench -- ${[name, ...flags].join(' ')}`;
}

export class BenchTimeout extends Error {
  override name = 'BenchTimeout';
}

/**
 * The time budget of one script. `within` races a promise against it; when the budget
 * runs out every pending `within` rejects with a BenchTimeout naming what it waited for.
 */
export class Budget {
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  readonly limitS: number;

  constructor(limitS: number) {
    this.limitS = limitS;
    this.#timer = setTimeout(() => this.#controller.abort(), limitS * 1000);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  within<T>(promise: Promise<T>, what: () => string): Promise<T> {
    const signal = this.#controller.signal;
    if (signal.aborted) return Promise.reject(new BenchTimeout(`time limit of ${this.limitS} s exceeded while ${what()}`));
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => reject(new BenchTimeout(`time limit of ${this.limitS} s exceeded while ${what()}`));
      signal.addEventListener('abort', onAbort, { once: true });
      promise.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }

  dispose(): void {
    clearTimeout(this.#timer);
  }
}

/** Resolves when `count()` reaches `target`; `subscribe` is called with a re-check to run on every change. */
export function whenCount(count: () => number, target: number, subscribe: (check: () => void) => () => void): Promise<number> {
  return new Promise((resolve) => {
    let unsubscribe: (() => void) | undefined;
    const check = (): void => {
      if (count() < target) return;
      unsubscribe?.();
      resolve(performance.now());
    };
    unsubscribe = subscribe(check);
    check();
  });
}

/** Calls `onPush` after every push to this array instance (the peers expose plain arrays). */
export function onPush<T>(array: T[], onPushed: () => void): () => void {
  const original = array.push;
  array.push = function push(this: T[], ...items: T[]): number {
    const length = original.apply(this, items);
    onPushed();
    return length;
  };
  return () => {
    array.push = original;
  };
}

/** A figure's value as the tables print it: whole from 100, one decimal from 10, else three significant digits. */
export const formatValue = (value: number): string => (Math.abs(value) >= 100 ? value.toFixed(0) : Math.abs(value) >= 10 ? value.toFixed(1) : value.toPrecision(3));

/** A plain-text table: a header, a rule, the rows; columns padded, the second (the value) right-aligned. */
export function textTable(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => (i === 1 ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

/** Every figure reported in this process, in order: `npm run bench` ends with a table of the targets among them. */
export const reported: Figure[] = [];

/** Issue 15: on PostgreSQL every figure ≥ this share of SQLite's, measured in the same run. */
export const POSTGRES_TARGET = 0.5;

/**
 * PostgreSQL's rate over SQLite's for one figure measured on both in this run (none
 * when either store was not run), with issue 15's target.
 */
export function postgresToSqlite(name: string, rates: readonly { readonly kind: string; readonly rate: number }[], conditions: Record<string, unknown> = {}): Figure[] {
  const sqlite = rates.find((r) => r.kind === 'sqlite');
  const postgres = rates.find((r) => r.kind === 'postgres');
  if (sqlite === undefined || postgres === undefined) return [];
  const ratio = postgres.rate / sqlite.rate;
  return [{
    name: `${name}.postgres-vs-sqlite`, value: ratio, unit: 'PostgreSQL/SQLite',
    conditions: { ...conditions, sqlite: Number(sqlite.rate.toFixed(1)), postgres: Number(postgres.rate.toFixed(1)), target: `≥ ${POSTGRES_TARGET}`, met: ratio >= POSTGRES_TARGET },
  }];
}

/** Prints the table, then one JSON line per figure. */
export function report(title: string, figures: readonly Figure[], notes: readonly string[] = []): void {
  reported.push(...figures);
  const m = machine();
  const rows = figures.map((f) => [f.name, formatValue(f.value), f.unit]);
  const out: string[] = ['', `${title}  (${m.cpus} × ${m.model}, node ${m.node})`, ...textTable(['figure', 'value', 'unit'], rows)];
  for (const note of notes) out.push(`  ${note}`);
  out.push('');
  for (const f of figures) out.push(JSON.stringify({ name: f.name, value: Number(f.value.toFixed(3)), unit: f.unit, conditions: f.conditions, machine: m }));
  process.stdout.write(out.join('\n') + '\n');
}

/** One line of progress on stderr, so stdout stays the table and the JSON lines. */
export function progress(text: string): void {
  process.stderr.write(`  · ${text}\n`);
}

export const seconds = (ms: number): number => Number((ms / 1000).toFixed(3));

export interface Harness {
  readonly budget: Budget;
  /** Clean-up to run at the end, in reverse order (servers to close, files to remove). */
  defer(close: () => Promise<void> | void): void;
  /** What to do first when the run is aborted (kill a child process by its handle). */
  onAbort(kill: () => void): void;
  /** Fails the run once it has reported (exit code 1) with a line saying why: the peer check. */
  fail(reason: string): void;
}

/** Every reason a benchmark in this process failed its run with: `npm run bench` repeats them at its end. */
export const failures: string[] = [];

/**
 * Runs one benchmark within its time budget and cleans up after it whatever happens,
 * so the process exits on its own. Returns the exit code: 0, or 1 with a clear message
 * when the budget ran out or something failed.
 */
export async function harness(name: string, timeoutS: number, rerun: string, body: (h: Harness) => Promise<void>): Promise<number> {
  const budget = new Budget(timeoutS);
  const closers: (() => Promise<void> | void)[] = [];
  const killers: (() => void)[] = [];
  let code = 0;
  process.stderr.write(`${name}: starting (budget ${timeoutS} s); rerun with: ${rerun}\n`);
  const started = performance.now();
  try {
    const failed: string[] = [];
    await body({ budget, defer: (close) => closers.push(close), onAbort: (kill) => killers.push(kill), fail: (reason) => failed.push(reason) });
    if (failed.length > 0) {
      code = 1;
      failures.push(...failed);
      process.stdout.write(failed.map((reason) => `${reason}\n`).join(''));
      process.stderr.write(failed.map((reason) => `\n${name}: ${reason}\n`).join(''));
    }
  } catch (error) {
    code = 1;
    const what = error instanceof BenchTimeout ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`\n${name}: ABORTED: ${what}\n`);
    for (const kill of killers) kill();
  } finally {
    budget.dispose();
    for (const close of closers.reverse()) {
      // A peer that will not close is not waited for forever.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.resolve().then(close).catch((error: unknown) => process.stderr.write(`${name}: clean-up: ${error instanceof Error ? error.message : String(error)}\n`)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, 5000))),
      ]);
      clearTimeout(timer);
    }
  }
  process.stdout.write(`rerun: ${rerun}\n`);
  process.stderr.write(`${name}: ${code === 0 ? 'done' : 'failed'} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  return code;
}
