// A closed-loop load generator: `clients` concurrent callers, each sending its next
// request as soon as its previous answer is read, through the global fetch (undici,
// keep-alive), until `count` requests were made. Any answer but the expected status fails
// the run: a benchmark that measured rejections would measure the wrong thing.

export interface LoadResult {
  /** performance.now() when the first request left and when the last answer was read. */
  readonly startedAt: number;
  readonly finishedAt: number;
}

export interface RequestLoadOptions {
  readonly count: number;
  readonly clients: number;
  /** The i-th request (0-based, counting from `offset`). */
  readonly request: (i: number) => { readonly url: string; readonly init?: RequestInit };
  /** The status every answer must have. */
  readonly status: number;
  readonly offset?: number;
  readonly signal: AbortSignal;
  /** Called after every expected answer. */
  readonly onAnswered?: () => void;
}

export async function requestMany(options: RequestLoadOptions): Promise<LoadResult> {
  const { count, clients, signal } = options;
  const offset = options.offset ?? 0;
  let next = 0;
  const startedAt = performance.now();
  let finishedAt = startedAt;

  async function client(): Promise<void> {
    while (next < count) {
      const i = offset + next++;
      const { url, init } = options.request(i);
      const response = await fetch(url, { ...init, signal });
      const text = await response.text();
      if (response.status !== options.status) throw new Error(`request ${i} answered ${response.status}: ${text.slice(0, 300)}`);
      finishedAt = performance.now();
      options.onAnswered?.();
    }
  }

  await Promise.all(Array.from({ length: Math.min(clients, count) }, client));
  return { startedAt, finishedAt };
}

export interface LoadOptions {
  readonly url: string;
  readonly apiKey: string;
  readonly count: number;
  readonly clients: number;
  /** Body of the i-th request (0-based, counting from `offset`). */
  readonly body: (i: number) => unknown;
  readonly offset?: number;
  readonly signal: AbortSignal;
  /** Called after every 200. */
  readonly onAccepted?: () => void;
}

/** POSTs JSON bodies to herald with its API key; every answer must be 200. */
export function postMany(options: LoadOptions): Promise<LoadResult> {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${options.apiKey}` };
  return requestMany({
    count: options.count, clients: options.clients, signal: options.signal, status: 200,
    ...(options.offset === undefined ? {} : { offset: options.offset }),
    ...(options.onAccepted === undefined ? {} : { onAnswered: options.onAccepted }),
    request: (i) => ({ url: options.url, init: { method: 'POST', headers, body: JSON.stringify(options.body(i)) } }),
  });
}
