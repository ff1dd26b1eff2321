import { performance } from 'node:perf_hooks';
import { reject, type Result } from '../domain/result.ts';
import { HeavyReadTimeout } from '../store/heavy-read.ts';
import type { AppDeps } from './deps.ts';

// The time limit of the reads that grow with an account's contacts (segment counts,
// campaign quotes): HERALD_HEAVY_READ_TIMEOUT_MS for all the reads of one request
// together; past it the request is answered 503 with the limit in `detail`.

export const DEFAULT_HEAVY_READ_MS = 5000;

/** The milliseconds left of one request's read budget, asked before each read. */
export type ReadBudget = () => number;

export function readBudget(deps: AppDeps): ReadBudget {
  const limit = deps.heavyReadMs ?? DEFAULT_HEAVY_READ_MS;
  const deadline = performance.now() + limit;
  return () => {
    const left = Math.ceil(deadline - performance.now());
    if (left <= 0) throw new HeavyReadTimeout(limit);
    return left;
  };
}

/** `work`'s value, or the 503 of a read past its limit. */
export async function withinReadLimit<T>(deps: AppDeps, work: () => Promise<T>): Promise<Result<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    if (!(error instanceof HeavyReadTimeout)) throw error;
    const limit = deps.heavyReadMs ?? DEFAULT_HEAVY_READ_MS;
    return reject('readTimedOut', { detail: `the store was read for more than ${limit} ms (HERALD_HEAVY_READ_TIMEOUT_MS): narrow the lists or the filter` });
  }
}
