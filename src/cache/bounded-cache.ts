import { LRUCache } from 'lru-cache';

// herald's one cache: every cache in src is a BoundedCache, each listed with its bounds in
// docs/operations.md "Caches". A leaf module: it imports nothing of herald's, so every
// layer (domain included) may use it.
//
// Bounded in entries (past maxEntries the least recently used goes) and, where entries
// differ much in size, in bytes as the owner estimates them (maxBytes, bytesOf). With a
// TTL an entry is served until `ttlMs` after it was set, and not at that instant; the
// TTL is checked here against the time the caller passes (or the cache's clock), since
// tests and the service inject their clocks, while lru-cache reads its own clock, counts
// an entry stale only past its TTL and never stales one set at time 0.

interface Bounds<K, V> {
  /** Entries kept at most; past it the least recently used goes. */
  readonly maxEntries?: number;
  /** Bytes kept at most, as `bytesOf` estimates each entry; an entry larger than this is not kept. */
  readonly maxBytes?: number;
  readonly bytesOf?: (value: V, key: K) => number;
}

export type BoundedCacheOptions<K, V> = {
  /** How long an entry is served after it was set, in ms; absent: until it is evicted. */
  readonly ttlMs?: number;
  /** The time when a call passes none (default Date.now). */
  readonly clock?: () => number;
} & (
  | (Bounds<K, V> & { readonly maxEntries: number })
  | (Bounds<K, V> & { readonly maxBytes: number; readonly bytesOf: (value: V, key: K) => number })
);

interface Entry<V> {
  readonly value: V;
  /** Clock time from which the entry is no longer served (Infinity without a TTL). */
  readonly until: number;
}

/** A size-bounded LRU cache with an optional TTL. Values may be null, never undefined (a miss). */
export class BoundedCache<K extends {}, V extends {} | null> {
  readonly #entries: LRUCache<K, Entry<V>>;
  readonly #clock: () => number;
  /** How long an entry is served after it was set (Infinity: until evicted). */
  readonly ttlMs: number;

  constructor(options: BoundedCacheOptions<K, V>) {
    const { maxEntries, maxBytes, bytesOf } = options;
    if (maxEntries === undefined && maxBytes === undefined) throw new RangeError('a BoundedCache needs maxEntries or maxBytes');
    this.ttlMs = options.ttlMs ?? Infinity;
    this.#clock = options.clock ?? Date.now;
    const bytes = maxBytes === undefined || bytesOf === undefined
      ? undefined
      : { maxSize: maxBytes, sizeCalculation: (entry: Entry<V>, key: K) => Math.max(1, bytesOf(entry.value, key)) };
    this.#entries = maxEntries === undefined && bytes !== undefined
      ? new LRUCache<K, Entry<V>>(bytes)
      : new LRUCache<K, Entry<V>>({ max: maxEntries ?? 0, ...bytes });
  }

  /** The value set under `key` when it is still served at `now`; undefined for a miss. */
  get(key: K, now?: number): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until !== Infinity && entry.until <= (now ?? this.#clock())) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Keeps `value` under `key` from `now` for the cache's TTL (or `ttlMs` when given). */
  set(key: K, value: V, options: { readonly now?: number; readonly ttlMs?: number } = {}): void {
    const ttlMs = options.ttlMs ?? this.ttlMs;
    const until = ttlMs === Infinity ? Infinity : (options.now ?? this.#clock()) + ttlMs;
    this.#entries.set(key, { value, until });
  }

  /** The value under `key`, made by `make` and kept on a miss. */
  obtain(key: K, make: () => V, now?: number): V {
    const hit = this.get(key, now);
    if (hit !== undefined) return hit;
    const value = make();
    this.set(key, value, { now });
    return value;
  }

  delete(key: K): void {
    this.#entries.delete(key);
  }

  /** Deletes every entry whose value passes `test` (a scan: for rare changes, not per request). */
  deleteWhere(test: (value: V) => boolean): void {
    const doomed: K[] = [];
    for (const [key, entry] of this.#entries.entries()) if (test(entry.value)) doomed.push(key);
    for (const key of doomed) this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }

  /** Entries held, expired ones not yet dropped included. */
  get size(): number {
    return this.#entries.size;
  }

  /** Bytes held as `bytesOf` estimated them (0 without maxBytes). */
  get bytes(): number {
    return this.#entries.calculatedSize;
  }
}

/**
 * Reads through `cache`: a hit, or `read()` kept when `keep` says so (a miss is never
 * kept). Absent cache: every call reads.
 */
export async function readThrough<K extends {}, V extends {} | null>(
  cache: BoundedCache<K, V> | undefined, key: K, now: number, read: () => Promise<V | undefined>, keep: (value: V) => boolean = () => true,
): Promise<V | undefined> {
  const hit = cache?.get(key, now);
  if (hit !== undefined) return hit;
  const value = await read();
  if (value !== undefined && keep(value)) cache?.set(key, value, { now });
  return value;
}
