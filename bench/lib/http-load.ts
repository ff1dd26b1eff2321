// A closed-loop load generator: `clients` concurrent callers, each posting its next
// request as soon as its previous answer is read, through the global fetch (undici,
// keep-alive), until `count` requests were made. Any answer but 200 fails the run: a
// benchmark that measured rejections would measure the wrong thing.

export interface LoadResult {
  /** performance.now() when the first request left and when the last 200 was read. */
  readonly startedAt: number;
  readonly finishedAt: number;
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

export async function postMany(options: LoadOptions): Promise<LoadResult> {
  const { url, apiKey, count, clients, signal } = options;
  const offset = options.offset ?? 0;
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` };
  let next = 0;
  const startedAt = performance.now();
  let finishedAt = startedAt;

  async function client(): Promise<void> {
    while (next < count) {
      const i = offset + next++;
      const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(options.body(i)), signal });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`request ${i} answered ${response.status}: ${text.slice(0, 300)}`);
      finishedAt = performance.now();
      options.onAccepted?.();
    }
  }

  await Promise.all(Array.from({ length: Math.min(clients, count) }, client));
  return { startedAt, finishedAt };
}
