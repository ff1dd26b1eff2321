import autocannon from 'autocannon';

// Open-ended HTTP load for a fixed time: autocannon's programmatic API, in the
// benchmark's own process, the same settings for herald and its baseline. Each of
// `connections` keep-alive connections sends its next request as soon as the answer
// to the previous one is read (no pipelining). Any answer but 2xx, or any connection
// error, fails the run: a benchmark that measured rejections would measure the wrong
// thing. A request unanswered after TIMEOUT_S is counted (`timeouts`), not fatal: it
// says the latency is past the scale, which is a finding, and the connection goes on
// with a new one.

const TIMEOUT_S = 10;

export interface LoadLevel {
  readonly url: string;
  readonly headers: Record<string, string>;
  /** The JSON body of the i-th request (POST). */
  readonly body: (i: number) => string;
  readonly connections: number;
  readonly durationS: number;
  readonly signal: AbortSignal;
}

/**
 * A fixed number of requests, each of its own (path, and body when it has one), from
 * `connections` keep-alive connections: the SMS benchmark's load on herald and on Kannel,
 * and the peer check's plain load on Kannel. Lighter than fetch: on the 2-core machine
 * the load generator shares the cores with what it measures.
 */
export interface CountedLoad {
  /** The origin (and the first request's path). */
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers?: Record<string, string>;
  /** The i-th request (0-based, counting from `offset`). */
  readonly request: (i: number) => { readonly path: string; readonly body?: string };
  readonly offset?: number;
  readonly amount: number;
  readonly connections: number;
  readonly signal: AbortSignal;
}

export interface LoadFigures {
  /** 2xx answers per second over the run. */
  readonly rps: number;
  /** Latency of the 2xx answers, milliseconds (autocannon's histogram has 1 ms resolution). */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** 2xx answers in the run. */
  readonly requests: number;
  readonly seconds: number;
  /** Requests not answered within TIMEOUT_S (not in the latency figures). */
  readonly timeouts: number;
  readonly timeoutS: number;
}

export function runLoad(level: LoadLevel): Promise<LoadFigures> {
  let sent = 0;
  return run({
    url: level.url,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...level.headers },
    // A counter shared by all connections: every request gets the next body.
    requests: [{ setupRequest: (request: autocannon.Request) => ({ ...request, body: level.body(sent++) }) }],
    duration: level.durationS,
  }, level, () => sampleAnswer(level));
}

export async function runCounted(load: CountedLoad): Promise<LoadFigures & { readonly startedAt: number; readonly finishedAt: number }> {
  const offset = load.offset ?? 0;
  let sent = 0;
  const startedAt = performance.now();
  const figures = await run({
    url: load.url,
    method: load.method,
    ...(load.headers === undefined ? {} : { headers: load.headers }),
    requests: [{ setupRequest: (request: autocannon.Request) => ({ ...request, ...load.request(offset + sent++) }) }],
    amount: load.amount,
  }, load, () => {
    const { path, body } = load.request(offset);
    return sampleFetch(`${new URL(load.url).origin}${path}`, { method: load.method, ...(load.headers === undefined ? {} : { headers: load.headers }), ...(body === undefined ? {} : { body }) });
  });
  return { ...figures, startedAt, finishedAt: performance.now() };
}

function run(
  options: autocannon.Options,
  level: { readonly url: string; readonly connections: number; readonly signal: AbortSignal },
  sample: () => Promise<string>,
): Promise<LoadFigures> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      { ...options, connections: level.connections, pipelining: 1, timeout: TIMEOUT_S },
      (error: unknown, result: autocannon.Result) => {
        level.signal.removeEventListener('abort', stop);
        if (error !== null && error !== undefined) {
          reject(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        const ok = result['2xx'];
        // autocannon counts a timeout among the errors too.
        if (result.non2xx > 0 || result.errors > result.timeouts) {
          const what = `${level.url}: ${result.non2xx} answers not 2xx (${JSON.stringify(result.statusCodeStats)}), ${result.errors - result.timeouts} connection errors at ${level.connections} connections`;
          // One more request of the same kind says why.
          void sample().then((answer) => reject(new Error(`${what}; a request now answers ${answer}`)));
          return;
        }
        resolve({
          rps: ok / result.duration, p50Ms: result.latency.p50, p99Ms: result.latency.p99, maxMs: result.latency.max, requests: ok, seconds: result.duration,
          timeouts: result.timeouts, timeoutS: TIMEOUT_S,
        });
      },
    );
    const stop = (): void => instance.stop();
    level.signal.addEventListener('abort', stop, { once: true });
  });
}

function sampleAnswer(level: LoadLevel): Promise<string> {
  return sampleFetch(level.url, { method: 'POST', headers: { 'content-type': 'application/json', ...level.headers }, body: level.body(-1) });
}

async function sampleFetch(url: string, init: RequestInit): Promise<string> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(5000) });
    return `${response.status} ${(await response.text()).slice(0, 300)}`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
