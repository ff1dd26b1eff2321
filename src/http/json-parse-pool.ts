import { Worker } from 'node:worker_threads';
import type { JsonParseOutcome } from './json-checks.ts';

// A few worker threads that check and parse large JSON bodies (json-parse-worker.ts), so
// the event loop only waits for them. Started on the first large body, never before: a
// service that gets none runs no threads, and a thread idle for JSON_PARSE_IDLE_MS ends.
// The body is moved to the thread, not copied; the parsed value comes back by structured
// clone, which for a body of a few long strings (the hostile ones) is a copy of their
// bytes, several times cheaper than the UTF-8 check, the scan and JSON.parse that the
// thread ran.

/** Threads in the pool: parses beyond them wait their turn, so at most this many cores are taken. */
export const JSON_PARSE_WORKERS = 2;
/**
 * A thread's heap. A body is at most HERALD_BODY_LIMIT (10 MiB) with 100,000 values:
 * its text and parsed value need a few tens of MB.
 */
const WORKER_HEAP_MB = 256;
/**
 * A thread idle this long ends: after a large body its heap holds tens of MB until a
 * collection that an idle thread may never run. The next large body starts a new one.
 */
export const JSON_PARSE_IDLE_MS = 5_000;

export interface JsonParseJob {
  readonly id: number;
  readonly body: Uint8Array;
}

export interface JsonParsePool {
  parse(body: Buffer): Promise<JsonParseOutcome>;
  /** Ends the threads; parses under way are rejected. */
  close(): Promise<void>;
}

interface Pending {
  readonly resolve: (outcome: JsonParseOutcome) => void;
  readonly reject: (error: Error) => void;
}

interface Thread {
  readonly worker: Worker;
  readonly pending: Map<number, Pending>;
  idle?: NodeJS.Timeout;
}

export function jsonParsePool(size = JSON_PARSE_WORKERS, idleMs = JSON_PARSE_IDLE_MS): JsonParsePool {
  const threads: Thread[] = [];
  let nextId = 0;
  let closed = false;

  function start(): Thread {
    // No inherited flags: V8 options (deploy/node-flags) are refused in a worker's execArgv.
    const worker = new Worker(new URL('./json-parse-worker.ts', import.meta.url), { execArgv: [], resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    // Idle threads never keep the process alive; busy ones do, until they answer.
    worker.unref();
    const thread: Thread = { worker, pending: new Map() };
    worker.on('message', ({ id, outcome }: { id: number; outcome: JsonParseOutcome }) => {
      const pending = thread.pending.get(id);
      thread.pending.delete(id);
      if (thread.pending.size === 0) {
        worker.unref();
        thread.idle = setTimeout(() => retire(thread), idleMs).unref();
      }
      pending?.resolve(outcome);
    });
    // A thread that failed is replaced by the next parse; its parses fail as exceptions (bugs).
    const fail = (error: Error): void => {
      const at = threads.indexOf(thread);
      if (at !== -1) threads.splice(at, 1);
      for (const pending of thread.pending.values()) pending.reject(error);
      thread.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the JSON parse thread exited with code ${code}`)));
    threads.push(thread);
    return thread;
  }

  /** Out of the pool first, so no parse is given to it while it ends. */
  function retire(thread: Thread): void {
    const at = threads.indexOf(thread);
    if (at === -1 || thread.pending.size > 0) return;
    threads.splice(at, 1);
    void thread.worker.terminate();
  }

  /** An idle thread, a new one while there are fewer than `size`, else the least busy. */
  function pick(): Thread {
    const idle = threads.find((thread) => thread.pending.size === 0);
    if (idle !== undefined) return idle;
    if (threads.length < size) return start();
    return threads.reduce((least, thread) => (thread.pending.size < least.pending.size ? thread : least));
  }

  return {
    parse(body) {
      if (closed) return Promise.reject(new Error('the JSON parse pool is closed'));
      const thread = pick();
      clearTimeout(thread.idle);
      const id = nextId++;
      return new Promise((resolve, reject) => {
        thread.pending.set(id, { resolve, reject });
        thread.worker.ref();
        const job: JsonParseJob = { id, body };
        // Moved when the body owns its memory (Fastify's concatenated body does), copied otherwise.
        const owned = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength;
        thread.worker.postMessage(job, owned ? [body.buffer as ArrayBuffer] : []);
      });
    },
    async close() {
      closed = true;
      await Promise.all(threads.splice(0).map((thread) => thread.worker.terminate()));
    },
  };
}
