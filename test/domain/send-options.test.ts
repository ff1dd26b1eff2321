import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMetadata } from '../../src/domain/send-options.ts';
import { DEFAULT_LIMITS } from '../../src/domain/request-limits.ts';

// `metadata` within HERALD_MAX_METADATA_BYTES (4,096) and HERALD_MAX_METADATA_DEPTH (16).

const invalid = (detail: string) => ({ ok: false, rejection: { code: 'invalidField', detail } });

/** `{"a":{"a":…1…}}`, `levels` objects deep. */
function nested(levels: number): Record<string, unknown> {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value as Record<string, unknown>;
}

test('metadata of exactly 4,096 bytes as JSON is accepted', () => {
  const metadata = { k: 'x'.repeat(4096 - '{"k":""}'.length) };
  assert.equal(Buffer.byteLength(JSON.stringify(metadata)), 4096);
  assert.deepStrictEqual(parseMetadata({ metadata }, DEFAULT_LIMITS), { ok: true, value: metadata });
});

test('metadata of 4,097 bytes as JSON is refused with the size named', () => {
  const metadata = { k: 'é'.repeat(2045) };
  assert.equal(Buffer.byteLength(JSON.stringify(metadata)), 4098);
  assert.deepStrictEqual(parseMetadata({ metadata }, DEFAULT_LIMITS), invalid('metadata must be at most 4096 bytes as JSON'));
});

test('metadata nested 16 levels is accepted; 17 is refused with the depth named', () => {
  assert.equal(parseMetadata({ metadata: nested(16) }, DEFAULT_LIMITS).ok, true);
  assert.deepStrictEqual(parseMetadata({ metadata: nested(17) }, DEFAULT_LIMITS), invalid('metadata must be nested at most 16 levels deep'));
});

test('arrays count as levels too', () => {
  assert.deepStrictEqual(parseMetadata({ metadata: { a: [[[1]]] } }, { ...DEFAULT_LIMITS, maxMetadataDepth: 3 }), invalid('metadata must be nested at most 3 levels deep'));
});

test('metadata nested 5,000 levels is refused by depth, without overflowing the stack', () => {
  assert.deepStrictEqual(parseMetadata({ metadata: nested(5000) }, DEFAULT_LIMITS), invalid('metadata must be nested at most 16 levels deep'));
});

test('a metadata object of 100,000 keys is refused by size after visiting only what passes the limit', () => {
  const metadata = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]));
  const start = performance.now();
  const result = parseMetadata({ metadata }, DEFAULT_LIMITS);
  const ms = performance.now() - start;
  assert.deepStrictEqual(result, invalid('metadata must be at most 4096 bytes as JSON'));
  assert.ok(ms < 1000, `${ms} ms`);
});
