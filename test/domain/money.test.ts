import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MINOR_PER_UNIT, MONEY_SCALE, formatMoney, moneyToString, parseMoney } from '../../src/domain/money.ts';

test('the scale is 4 decimal places', () => {
  assert.equal(MONEY_SCALE, 4);
  assert.equal(MINOR_PER_UNIT, 10000);
});

test('JSON numbers parse to minor units', () => {
  assert.equal(parseMoney(1), 10000);
  assert.equal(parseMoney(0.05), 500);
  assert.equal(parseMoney(12.5), 125000);
  assert.equal(parseMoney(0.0147), 147);
  assert.equal(parseMoney(0), 0);
});

test('decimal strings parse to minor units', () => {
  assert.equal(parseMoney('1.00'), 10000);
  assert.equal(parseMoney('0.0147'), 147);
  assert.equal(parseMoney('250'), 2500000);
});

test('1.00 minus 0.05 is exactly 0.95 on the wire', () => {
  const a = parseMoney('1.00');
  const b = parseMoney('0.05');
  assert.ok(a !== null && b !== null);
  assert.equal(formatMoney(a - b), 0.95);
  assert.equal(JSON.stringify(formatMoney(a - b)), '0.95');
});

test('ten thousand prices of 0.0147 add up to exactly 147', () => {
  const price = parseMoney(0.0147);
  assert.ok(price !== null);
  let total = 0;
  for (let i = 0; i < 10000; i++) total += price;
  assert.equal(formatMoney(total), 147);
});

test('more than 4 fraction digits is rejected', () => {
  assert.equal(parseMoney(0.00001), null);
  assert.equal(parseMoney('0.00001'), null);
  assert.equal(parseMoney('1.00000'), null);
});

test('negative amounts are rejected unless allowed', () => {
  assert.equal(parseMoney(-1), null);
  assert.equal(parseMoney('-0.05'), null);
  assert.equal(parseMoney(-1, { allowNegative: true }), -10000);
  assert.equal(parseMoney('-0.05', { allowNegative: true }), -500);
});

test('negative zero is zero', () => {
  assert.equal(parseMoney('-0.00'), 0);
  assert.ok(Object.is(parseMoney(-0), 0));
});

test('NaN, Infinity and exponent notation are rejected', () => {
  assert.equal(parseMoney(Number.NaN), null);
  assert.equal(parseMoney(Number.POSITIVE_INFINITY), null);
  assert.equal(parseMoney(1e21), null);
  assert.equal(parseMoney('1e3'), null);
});

test('amounts past the safe integer range are rejected', () => {
  assert.equal(parseMoney('900719925474.0991'), 9007199254740991);
  assert.equal(parseMoney('900719925474.0992'), null);
  assert.equal(parseMoney(1e18), null);
});

test('malformed strings and other types are rejected', () => {
  for (const input of ['', ' 1', '1 ', '+1', '.5', '1.', '1,00', 'abc', '0x10', '١', null, undefined, true, 1n, {}, []]) {
    assert.equal(parseMoney(input), null, `input ${String(input)}`);
  }
});

test('formatMoney gives the shortest decimal number', () => {
  assert.equal(formatMoney(9500), 0.95);
  assert.equal(formatMoney(10000), 1);
  assert.equal(formatMoney(123), 0.0123);
  assert.equal(formatMoney(-500), -0.05);
});

test('formatMoney of zero is a positive zero', () => {
  assert.ok(Object.is(formatMoney(-0), 0));
});

test('moneyToString has 4 fixed decimals', () => {
  assert.equal(moneyToString(9500), '0.9500');
  assert.equal(moneyToString(10000), '1.0000');
  assert.equal(moneyToString(1), '0.0001');
  assert.equal(moneyToString(0), '0.0000');
  assert.equal(moneyToString(1234567), '123.4567');
});

test('moneyToString puts a minus sign on negative amounts', () => {
  assert.equal(moneyToString(-500), '-0.0500');
  assert.equal(moneyToString(-123456), '-12.3456');
});

test('moneyToString throws on a fraction of a minor unit', () => {
  assert.throws(() => moneyToString(0.5), RangeError);
});
