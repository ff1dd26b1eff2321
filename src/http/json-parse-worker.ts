import { parentPort } from 'node:worker_threads';
import { parseJsonBody } from './json-checks.ts';
import type { JsonParseJob } from './json-parse-pool.ts';

// A thread of the JSON parse pool (json-parse-pool.ts): json-checks.ts's checks and parse
// of one large body at a time, off the service's event loop. The depth and element
// bounds come before JSON.parse, so nothing here recurses deeper than 64 levels or
// builds more than 100,000 values.

parentPort?.on('message', (job: JsonParseJob) => {
  parentPort?.postMessage({ id: job.id, outcome: parseJsonBody(job.body) });
});
