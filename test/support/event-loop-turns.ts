// How long work holds the event loop between two of its turns, for the tests of reads
// that must let other requests (/healthz) be answered while they run.

/**
 * The most CPU time spent between two turns of the event loop while `work` runs: the cost
 * of its longest synchronous stretch, which a busy machine's scheduling does not inflate
 * (a wall-clock delay would count the time the process waited for a core). The main
 * thread's time only: the process's would add what its other threads did meanwhile (the
 * garbage collector's helpers, the JSON parse pool, SQLite's checkpoint thread).
 */
export async function longestTurnCpuMs<T>(work: () => Promise<T>): Promise<{ value: T; cpuMs: number }> {
  let last = process.threadCpuUsage();
  let longest = 0;
  const sampler = setInterval(() => {
    const now = process.threadCpuUsage(last);
    longest = Math.max(longest, (now.user + now.system) / 1000);
    last = process.threadCpuUsage();
  }, 1);
  try {
    const value = await work();
    return { value, cpuMs: longest };
  } finally {
    clearInterval(sampler);
  }
}
