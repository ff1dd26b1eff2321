// The bounded TTL cache behind the send path's read caches (app/ttl-cache.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readThrough, TtlCache } from '../../src/app/ttl-cache.ts';

test('an entry is served until its ttl has passed, and not at that instant', () => {
  const cache = new TtlCache<string, number>({ ttlMs: 1000, maxEntries: 10 });
  cache.set('a', 1, 5000);
  assert.equal(cache.get('a', 5999), 1);
  assert.equal(cache.get('a', 6000), undefined);
  assert.equal(cache.size, 0);
});

test('past maxEntries the least recently used entry goes', () => {
  const cache = new TtlCache<string, number>({ ttlMs: 1000, maxEntries: 2 });
  cache.set('a', 1, 0);
  cache.set('b', 2, 0);
  assert.equal(cache.get('a', 1), 1); // b is now the least recently used
  cache.set('c', 3, 1);
  assert.deepStrictEqual([cache.get('a', 2), cache.get('b', 2), cache.get('c', 2)], [1, undefined, 3]);
});

test('an evicted entry is read again', async () => {
  const cache = new TtlCache<string, number>({ ttlMs: 1000, maxEntries: 10 });
  let reads = 0;
  const read = async () => ++reads;
  assert.equal(await readThrough(cache, 'k', 0, read), 1);
  assert.equal(await readThrough(cache, 'k', 1, read), 1);
  cache.evict('k');
  assert.equal(await readThrough(cache, 'k', 2, read), 2);
});

test('readThrough remembers neither a miss nor a value it is told not to keep', async () => {
  const cache = new TtlCache<string, number>({ ttlMs: 1000, maxEntries: 10 });
  assert.equal(await readThrough(cache, 'missing', 0, async () => undefined), undefined);
  assert.equal(await readThrough(cache, 'odd', 0, async () => 3, (n) => n % 2 === 0), 3);
  assert.equal(cache.size, 0);
});
