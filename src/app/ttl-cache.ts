/**
 * A small read cache for what every request reads and almost never changes (an
 * account's settings, a verified sender domain, an approved WhatsApp template): each
 * entry is served for `ttlMs` after it was read, then read again. Bounded: past
 * `maxEntries` the least recently used entry goes, so many accounts cannot grow it.
 *
 * What a TTL promises: a change made by another process (the CLI, another API
 * process on PostgreSQL) is seen here within `ttlMs`. A change made through this
 * process evicts the entry after its commit (see the callers of evict), so it applies
 * here to the next request.
 */
export class TtlCache<K, V> {
  readonly #entries = new Map<K, { readonly value: V; readonly until: number }>();
  readonly ttlMs: number;
  readonly #maxEntries: number;

  constructor(options: { readonly ttlMs: number; readonly maxEntries: number }) {
    this.ttlMs = options.ttlMs;
    this.#maxEntries = options.maxEntries;
  }

  get(key: K, now: number): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (entry.until <= now) return undefined;
    this.#entries.set(key, entry); // most recently used last
    return entry.value;
  }

  set(key: K, value: V, now: number): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, until: now + this.ttlMs });
    if (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }

  evict(key: K): void {
    this.#entries.delete(key);
  }

  /** Evicts every entry whose value passes `test` (a scan: for rare changes, not per request). */
  evictWhere(test: (value: V) => boolean): void {
    for (const [key, entry] of this.#entries) if (test(entry.value)) this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** Reads through `cache`: a hit, or `read()` remembered when `keep` says so (a miss is never remembered). */
export async function readThrough<K, V>(
  cache: TtlCache<K, V> | undefined, key: K, now: number, read: () => Promise<V | undefined>, keep: (value: V) => boolean = () => true,
): Promise<V | undefined> {
  const hit = cache?.get(key, now);
  if (hit !== undefined) return hit;
  const value = await read();
  if (value !== undefined && keep(value)) cache?.set(key, value, now);
  return value;
}
