import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validate, version } from 'uuid';
import { uuidv7Source } from '../../src/app/uuidv7-source.ts';

// The sequence is the process's: a clock behind an earlier id's keeps that id's millisecond.
// So the first test's clock is ahead of every other clock in this file.
test('ids are valid UUIDv7 carrying the clock\'s millisecond', () => {
  const id = uuidv7Source(() => 0x0290_1234_5678)();
  assert.equal(validate(id), true);
  assert.equal(version(id), 7);
  assert.equal(id.replaceAll('-', '').slice(0, 12), '029012345678');
});

test('ids made in one millisecond increase strictly, across refills of the random pool', () => {
  const next = uuidv7Source(() => 1_700_000_000_000);
  const ids = Array.from({ length: 1000 }, next);
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(new Set(ids).size, 1000);
});

test('ids keep increasing when the clock steps back', () => {
  let now = 1_700_000_000_000;
  const next = uuidv7Source(() => now);
  const before = next();
  now -= 5000;
  const after = next();
  assert.equal(after > before, true);
});

test('ids of two sources of one process interleave in the order they were made', () => {
  const clock = () => 1_700_000_000_000;
  const service = uuidv7Source(clock);
  const other = uuidv7Source(clock);
  const ids = [service(), other(), service(), other()];
  assert.deepStrictEqual([...ids].sort(), ids);
});
