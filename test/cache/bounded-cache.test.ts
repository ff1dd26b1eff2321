// herald's one cache (src/cache/bounded-cache.ts): its bounds, its TTL and its read-through.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BoundedCache, readThrough } from '../../src/cache/bounded-cache.ts';

const T0 = 5000;

test('an entry is served until its ttl has passed, and not at that instant', () => {
  const cache = new BoundedCache<string, number>({ ttlMs: 1000, maxEntries: 10 });
  cache.set('a', 1, { now: T0 });
  assert.equal(cache.get('a', T0 + 999), 1);
  assert.equal(cache.get('a', T0 + 1000), undefined);
  assert.equal(cache.size, 0);
});

test('an entry set at time 0 expires like any other', () => {
  const cache = new BoundedCache<string, number>({ ttlMs: 10, maxEntries: 10 });
  cache.set('a', 1, { now: 0 });
  assert.equal(cache.get('a', 10), undefined);
});

test('without a time the cache reads its clock', () => {
  const clock = { now: T0 };
  const cache = new BoundedCache<string, number>({ ttlMs: 1000, maxEntries: 10, clock: () => clock.now });
  cache.set('a', 1);
  clock.now += 999;
  assert.equal(cache.get('a'), 1);
  clock.now += 1;
  assert.equal(cache.get('a'), undefined);
});

test('a ttl given to set outlives the cache\'s own', () => {
  const cache = new BoundedCache<string, number>({ ttlMs: 10, maxEntries: 10 });
  cache.set('a', 1, { now: T0, ttlMs: 100 });
  assert.equal(cache.get('a', T0 + 99), 1);
});

test('without a ttl an entry is kept until it is evicted', () => {
  const cache = new BoundedCache<string, number>({ maxEntries: 10 });
  cache.set('a', 1, { now: T0 });
  assert.equal(cache.get('a', Number.MAX_SAFE_INTEGER), 1);
});

test('past maxEntries the least recently used entry goes', () => {
  const cache = new BoundedCache<string, number>({ ttlMs: 1000, maxEntries: 2 });
  cache.set('a', 1, { now: T0 });
  cache.set('b', 2, { now: T0 });
  assert.equal(cache.get('a', T0 + 1), 1); // b is now the least recently used
  cache.set('c', 3, { now: T0 + 1 });
  assert.deepStrictEqual([cache.get('a', T0 + 2), cache.get('b', T0 + 2), cache.get('c', T0 + 2)], [1, undefined, 3]);
});

test('past maxBytes the least recently used entries go until the new one fits', () => {
  const cache = new BoundedCache<string, string>({ maxBytes: 10, bytesOf: (value) => value.length });
  cache.set('a', 'xxxx');
  cache.set('b', 'yyyy');
  cache.set('c', 'zzzzzz');
  assert.deepStrictEqual([cache.get('a'), cache.get('b'), cache.get('c')], [undefined, 'yyyy', 'zzzzzz']);
  assert.equal(cache.bytes, 10);
});

test('an entry larger than maxBytes is not kept', () => {
  const cache = new BoundedCache<string, string>({ maxBytes: 3, bytesOf: (value) => value.length });
  cache.set('a', 'xxxx');
  assert.equal(cache.get('a'), undefined);
  assert.equal(cache.size, 0);
});

test('a null value is kept and told apart from a miss', () => {
  const cache = new BoundedCache<string, string | null>({ maxEntries: 10 });
  cache.set('refused', null);
  assert.deepStrictEqual([cache.get('refused'), cache.get('unknown')], [null, undefined]);
});

test('obtain makes a value once and serves it after', () => {
  const cache = new BoundedCache<string, number>({ maxEntries: 10 });
  let made = 0;
  assert.equal(cache.obtain('k', () => ++made), 1);
  assert.equal(cache.obtain('k', () => ++made), 1);
  assert.equal(made, 1);
});

test('deleteWhere deletes the entries whose value passes, and only those', () => {
  const cache = new BoundedCache<string, number>({ maxEntries: 10 });
  for (const [key, value] of [['a', 1], ['b', 2], ['c', 3]] as const) cache.set(key, value);
  cache.deleteWhere((n) => n % 2 === 1);
  assert.deepStrictEqual([cache.get('a'), cache.get('b'), cache.get('c')], [undefined, 2, undefined]);
});

test('a cache without maxEntries or maxBytes is refused', () => {
  assert.throws(() => new BoundedCache<string, number>({ maxEntries: undefined as unknown as number }), RangeError);
});

test('a deleted entry is read again', async () => {
  const cache = new BoundedCache<string, number>({ ttlMs: 1000, maxEntries: 10 });
  let reads = 0;
  const read = async () => ++reads;
  assert.equal(await readThrough(cache, 'k', T0, read), 1);
  assert.equal(await readThrough(cache, 'k', T0 + 1, read), 1);
  cache.delete('k');
  assert.equal(await readThrough(cache, 'k', T0 + 2, read), 2);
});

test('readThrough keeps neither a miss nor a value it is told not to keep', async () => {
  const cache = new BoundedCache<string, number>({ ttlMs: 1000, maxEntries: 10 });
  assert.equal(await readThrough(cache, 'missing', T0, async () => undefined), undefined);
  assert.equal(await readThrough(cache, 'odd', T0, async () => 3, (n) => n % 2 === 0), 3);
  assert.equal(cache.size, 0);
});
