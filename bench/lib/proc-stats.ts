import { readFileSync } from 'node:fs';

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
  const stat = readProc(pid, 'stat');
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S; // utime, stime (fields 14, 15)
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
