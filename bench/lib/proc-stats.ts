import { readdirSync, readFileSync } from 'node:fs';

// What the kernel says about a child process (Linux /proc): its resident memory and
// the CPU time it used. Read from the parent, so sampling costs the measured process
// nothing and goes on while its event loop is busy.

const CLOCK_TICKS_PER_S = 100; // USER_HZ, 100 on every Linux architecture Node runs on

export interface Rss {
  /** Resident set size now, bytes. */
  readonly rssBytes: number;
  /** Highest resident set size since the process started (VmHWM), bytes. */
  readonly peakBytes: number;
}

export function readRss(pid: number): Rss {
  const status = readProc(pid, 'status');
  const kb = (field: string): number => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    if (match?.[1] === undefined) throw new Error(`/proc/${pid}/status has no ${field}`);
    return Number(match[1]) * 1024;
  };
  return { rssBytes: kb('VmRSS'), peakBytes: kb('VmHWM') };
}

/** User + system CPU seconds the process has used so far (10 ms resolution). */
export function cpuSeconds(pid: number): number {
  const fields = statFields(readProc(pid, 'stat'));
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S; // utime, stime (fields 14, 15)
}

/**
 * User + system CPU seconds of a process and every process below it so far, the live
 * ones and those already ended (a parent's cutime and cstime hold the children it
 * reaped): a server made of many short-lived processes, like Postfix's master and its
 * daemons, measured as one.
 */
export function treeCpuSeconds(rootPid: number): number {
  const children = new Map<number, number[]>();
  const ticks = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended since the directory was read: its time is in its parent's cutime by now, or soon
    }
    const fields = statFields(stat);
    const pid = Number(entry);
    const ppid = Number(fields[1]); // field 4
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
    ticks.set(pid, Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])); // utime, stime, cutime, cstime
  }
  if (!ticks.has(rootPid)) readProc(rootPid, 'stat'); // throws the error that says why
  let total = 0;
  for (const queue = [rootPid]; queue.length > 0;) {
    const pid = queue.pop() as number;
    total += ticks.get(pid) ?? 0;
    queue.push(...(children.get(pid) ?? []));
  }
  return total / CLOCK_TICKS_PER_S;
}

/** The fields of /proc/<pid>/stat from the third on (state, ppid, …): the command name (field 2) may hold spaces. */
function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

function readProc(pid: number, file: string): string {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch (error) {
    throw new Error(`cannot read /proc/${pid}/${file} (the memory and CPU figures need Linux): ${error instanceof Error ? error.message : String(error)}`);
  }
}

export interface RssSampler {
  /** Stops sampling; the highest RSS seen and the number of samples. */
  stop(): { readonly peakBytes: number; readonly samples: number };
}

/** Samples the RSS of `pid` every `intervalMs` until stopped. */
export function sampleRss(pid: number, intervalMs: number): RssSampler {
  let peak = readRss(pid).rssBytes;
  let samples = 1;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, readRss(pid).rssBytes);
      samples += 1;
    } catch {
      clearInterval(timer); // the process ended: the run reports that on its own
    }
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      peak = Math.max(peak, readRss(pid).rssBytes);
      return { peakBytes: peak, samples: samples + 1 };
    },
  };
}

export const megabytes = (bytes: number): number => bytes / (1024 * 1024);
