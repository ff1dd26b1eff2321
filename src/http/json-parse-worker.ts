import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { parseJsonBody } from './json-checks.ts';
import type { JsonParseJob } from './json-parse-pool.ts';

// A thread of the JSON parse pool (json-parse-pool.ts): json-checks.ts's checks and parse
// of one large body at a time, off the service's event loop. The depth and element
// bounds come before JSON.parse, so nothing here recurses deeper than 64 levels or
// builds more than 100,000 values.

/**
 * The thread's nice value. On a busy machine the event loop (health checks, every small
 * request) goes first and a large body's parse takes what is left. On Linux the nice
 * value is per thread, and setPriority(0) names the calling thread; elsewhere it would
 * be the whole process's, so it is left alone there.
 */
const PARSE_THREAD_NICE = 10;

if (process.platform === 'linux') {
  try {
    setPriority(0, PARSE_THREAD_NICE);
  } catch {
    // Only a preference: a sandbox that forbids it leaves the thread at the process's priority.
  }
}

parentPort?.on('message', (job: JsonParseJob) => {
  parentPort?.postMessage({ id: job.id, outcome: parseJsonBody(job.body) });
});
