// GET /healthz every few milliseconds from a worker thread of its own, so what it
// measures is the service's answer time, not the test's own event loop (busy building
// and sending megabytes of hostile bodies).
import { Worker } from 'node:worker_threads';

interface Sample {
  /** Date.now() when the probe was sent. */
  readonly start: number;
  readonly ms: number;
  readonly ok: boolean;
}

export interface HealthProbe {
  /**
   * The probes that were in flight at any time between `from` and now (Date.now()), and
   * the first sent after now, once it has answered: their slowest answer and how many failed.
   * A probe still unanswered after `waitMs` counts as that slow.
   */
  worstSince(from: number, waitMs?: number): Promise<{ readonly maxMs: number; readonly probes: number; readonly failed: number }>;
  stop(): Promise<void>;
}

const PROBE_LOOP = `
const { parentPort, workerData } = require('node:worker_threads');
let running = true;
parentPort.on('message', () => { running = false; });
(async () => {
  // Not counted: a fresh worker's first fetch spends 70-90 ms loading undici on this 2-core
  // machine, against a server that answers in 3 ms; herald's own first answers were already
  // exercised by its start (startHerald waits for /readyz to answer 200).
  try { await (await fetch(workerData.url, { signal: AbortSignal.timeout(10000) })).arrayBuffer(); } catch {}
  while (running) {
    const start = Date.now();
    let ok = false;
    try {
      const res = await fetch(workerData.url, { signal: AbortSignal.timeout(10000) });
      ok = res.status === 200 && (await res.json()).status === 'ok';
    } catch {}
    parentPort.postMessage({ start, ms: Date.now() - start, ok });
    await new Promise((resolve) => setTimeout(resolve, workerData.everyMs));
  }
  parentPort.close();
})();
`;

export function probeHealth(baseUrl: string, everyMs = 20): HealthProbe {
  const samples: Sample[] = [];
  const worker = new Worker(PROBE_LOOP, { eval: true, workerData: { url: `${baseUrl}/healthz`, everyMs } });
  worker.on('message', (sample: Sample) => samples.push(sample));
  return {
    async worstSince(from, waitMs = 5000) {
      const until = Date.now();
      // Every probe sent before `until` has answered once one sent after it has.
      const deadline = until + waitMs;
      while (!samples.some((s) => s.start >= until) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      // The window's probes, and the first one sent after it: at least one, however short the window.
      const next = samples.find((s) => s.start >= until);
      const inWindow = samples.filter((s) => s.start + s.ms >= from && s.start <= (next?.start ?? until));
      const answered = next !== undefined;
      const maxMs = Math.max(0, ...inWindow.map((s) => s.ms), answered ? 0 : Date.now() - until);
      return { maxMs, probes: inWindow.length, failed: inWindow.filter((s) => !s.ok).length };
    },
    async stop() {
      worker.postMessage('stop');
      await new Promise((resolve) => worker.once('exit', resolve));
    },
  };
}
