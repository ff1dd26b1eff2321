import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { formatSqlTimings, type SqlTiming } from './sql-timing.ts';
import { fileURLToPath } from 'node:url';

// Where a process's time went, from a V8 .cpuprofile (node --cpu-prof): self time by
// package or source file, the functions with the most self time, and inclusive time
// of herald's own functions (a sample counts once per function on its stack).
// Also runnable by hand: node bench/lib/profile-summary.ts <file.cpuprofile> [top]

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}
interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
  readonly startTime: number;
  readonly endTime: number;
}

const SPECIAL = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

/** `fastify`, `node:internal/…`, `src/queue/outbox/claim.ts`, `(garbage collector)` … */
function bucketOf(frame: CallFrame): string {
  if (SPECIAL.has(frame.functionName)) return frame.functionName;
  if (isSqlite(frame)) return 'node:sqlite (executing statements, fsync included)';
  const url = frame.url;
  if (url === '') return '(native / V8 builtins)';
  if (url.startsWith('node:')) return url.startsWith('node:internal/deps/undici') ? 'node:undici' : url.replace(/^(node:(internal\/)?[^/]+).*$/, '$1');
  const modules = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  if (modules?.[1] !== undefined) return modules[1];
  const own = /\/((src|bench|test)\/.*)$/.exec(url);
  return own?.[1] ?? url;
}

/**
 * node:sqlite's statements run synchronously inside a JS frame with no native frame of
 * their own: the adapter's run/all in src/store/dialect.ts, or the wrapper that times them.
 */
function isSqlite(frame: CallFrame): boolean {
  return (/\/src\/store\/dialect\.ts$/.test(frame.url) && ['run', 'all', 'get', 'iterate'].includes(frame.functionName))
    || (/\/bench\/lib\/sql-timing\.ts$/.test(frame.url) && frame.functionName === 'timed');
}

function where(frame: CallFrame): string {
  if (frame.url === '') return '';
  const modules = /node_modules\/(.*)$/.exec(frame.url);
  const own = /\/((src|bench|test)\/.*)$/.exec(frame.url);
  return `${modules?.[1] ?? own?.[1] ?? frame.url}:${frame.lineNumber + 1}`;
}

/** What `--profile` prints after a run: SQL time by statement, then every CPU profile the herald process wrote. */
export async function printProfile(name: string, sql: readonly SqlTiming[], profileDir: string, focus: ProfileFocus = {}): Promise<void> {
  if (sql.length > 0) process.stdout.write('\n' + formatSqlTimings(sql, 25, focus.per) + '\n');
  const files = (await readdir(profileDir)).filter((f) => f.endsWith('.cpuprofile'));
  for (const file of files) process.stdout.write('\n' + summarizeProfile(join(profileDir, file), 20, focus) + '\n');
  if (files.length === 0) process.stderr.write(`${name}: no CPU profile was written to ${profileDir}\n`);
}

/** The monotonic clock of V8's profile timestamps (CLOCK_MONOTONIC, shared by every process), in microseconds. */
export const profileClockUs = (): number => Number(process.hrtime.bigint() / 1000n);

export interface ProfileFocus {
  /** Only samples taken within these [from, to] intervals of profileClockUs() (the measured loads). */
  readonly windows?: readonly (readonly [number, number])[];
  /** Also show time per unit of work done within the windows (e.g. accepted requests). */
  readonly per?: { readonly count: number; readonly unit: string };
}

export function summarizeProfile(file: string, top = 20, focus: ProfileFocus = {}): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const windows = focus.windows ?? [];
  const inWindow = (at: number): boolean => windows.length === 0 || windows.some(([from, to]) => at >= from && at <= to);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const selfByNode = new Map<number, number>();
  let total = 0;
  let sampledAt = profile.startTime;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    sampledAt += dt;
    if (!inWindow(sampledAt)) return;
    selfByNode.set(id, (selfByNode.get(id) ?? 0) + dt);
    total += dt;
  });

  const selfByBucket = new Map<string, number>();
  const selfByFunction = new Map<string, number>();
  const inclusiveOwn = new Map<string, number>();
  for (const [id, time] of selfByNode) {
    const node = byId.get(id);
    if (node === undefined) continue;
    const bucket = bucketOf(node.callFrame);
    selfByBucket.set(bucket, (selfByBucket.get(bucket) ?? 0) + time);
    const fn = isSqlite(node.callFrame) ? 'node:sqlite statements (run/all)' : `${node.callFrame.functionName || '(anonymous)'}  ${where(node.callFrame)}`.trim();
    selfByFunction.set(fn, (selfByFunction.get(fn) ?? 0) + time);
    // Inclusive time of herald's functions: once per distinct function on this stack.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (frame === undefined || !/\/src\//.test(frame.url) || /node_modules/.test(frame.url)) continue;
      const key = `${frame.functionName || '(anonymous)'}  ${where(frame)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      inclusiveOwn.set(key, (inclusiveOwn.get(key) ?? 0) + time);
    }
  }

  const idle = selfByBucket.get('(idle)') ?? 0;
  const busy = total - idle;
  const per = focus.per;
  const pct = (t: number): string => `${((100 * t) / busy).toFixed(1).padStart(5)}%`;
  const ms = (t: number): string => `${(t / 1000).toFixed(0).padStart(6)} ms` + (per === undefined ? '' : `  ${(t / 1000 / per.count).toFixed(3).padStart(6)} ms/${per.unit}`);
  const sorted = (map: Map<string, number>): [string, number][] => [...map].filter(([k]) => k !== '(idle)').sort((a, b) => b[1] - a[1]);
  const lines = [
    `CPU profile ${file}${windows.length === 0 ? '' : ` (${windows.length} measured window${windows.length === 1 ? '' : 's'} only)`}`,
    `  wall ${(total / 1e6).toFixed(2)} s, busy ${(busy / 1e6).toFixed(2)} s (${((100 * busy) / total).toFixed(0)}%), idle ${(idle / 1e6).toFixed(2)} s; percentages are of busy time`
      + (per === undefined ? '' : `; ${per.count} ${per.unit}s: ${(busy / 1000 / per.count).toFixed(3)} ms busy per ${per.unit}`),
    '  self time by package / file:',
    ...sorted(selfByBucket).slice(0, top).map(([k, t]) => `    ${pct(t)} ${ms(t)}  ${k}`),
    '  functions by self time:',
    ...sorted(selfByFunction).slice(0, top).map(([k, t]) => `    ${pct(t)} ${ms(t)}  ${k}`),
    "  herald's functions by inclusive time:",
    ...sorted(inclusiveOwn).slice(0, top).map(([k, t]) => `    ${pct(t)} ${ms(t)}  ${k}`),
  ];
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, top] = process.argv.slice(2);
  if (file === undefined) {
    process.stderr.write('usage: node bench/lib/profile-summary.ts <file.cpuprofile> [top]\n');
    process.exit(2);
  }
  process.stdout.write(summarizeProfile(file, top === undefined ? 20 : Number(top)) + '\n');
}
