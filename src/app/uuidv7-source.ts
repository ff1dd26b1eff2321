import { randomFillSync } from 'node:crypto';
import { v7 } from 'uuid';
import type { IdSource } from './deps.ts';

// 256 ids' worth of randomness per refill: drawing 16 bytes from the system for each id
// was a tenth of the CPU of an accepted SMS.
const POOL_BYTES = 4096;

// One sequence per process, whichever source asks: ids made by any source here sort
// in the order they were made (a test's ids interleave with the service's).
const pool = Buffer.allocUnsafe(POOL_BYTES);
let offset = POOL_BYTES;
let lastMsecs = -Infinity;
let seq = 0;

/**
 * UUIDv7 ids (RFC 9562), as the uuid package makes them: time-ordered, and strictly
 * increasing within the process, because keyset cursors and event timelines sort on
 * them. The package's own monotonic state is used only when it draws the randomness
 * itself, so the same rule (a random 31-bit counter per millisecond, counting up
 * within it) is kept here.
 */
export function uuidv7Source(clock: () => number = Date.now): IdSource {
  return () => {
    if (offset === POOL_BYTES) {
      randomFillSync(pool);
      offset = 0;
    }
    const random = pool.subarray(offset, (offset += 16));
    const now = clock();
    if (now > lastMsecs) {
      lastMsecs = now;
      seq = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
    } else {
      seq = (seq + 1) | 0;
      if (seq === 0) lastMsecs++;
    }
    return v7({ random, msecs: lastMsecs, seq });
  };
}

/** The process's id source on the wall clock. */
export const uuidv7: IdSource = uuidv7Source();
