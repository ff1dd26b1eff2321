// The dot-atom fast path of parseAddress (domain/email-address.ts) answers exactly what
// the full RFC 5322 parser answers, for the addresses it takes and their near misses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAddress, parseWithParser } from '../../src/domain/email-address.ts';

const ATEXT = "abcXYZ019!#$%&'*+/=?^_`{|}~-";
const HOST = 'abz019-';

/** A deterministic generator (no flaky runs): a linear congruential one. */
function generator(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
}

function word(pick: (n: number) => number, alphabet: string, max: number): string {
  let out = '';
  for (let i = 1 + pick(max); i > 0; i--) out += alphabet[pick(alphabet.length)];
  return out;
}

test('hand-picked addresses and near misses: the fast path agrees with the parser', () => {
  const samples = [
    'ana@example.org', 'Ana.Maria+news@Mail.Example.COM', "o'brien@example.ie", 'a{b}|c~d@example.com', '#!$%&*=?^_`@example.com',
    `${'a'.repeat(64)}@example.com`, `${'a'.repeat(65)}@example.com`, '.ana@example.org', 'ana.@example.org', 'an..a@example.org',
    'ana@-example.org', 'ana@example-.org', 'ana@example', 'ana@example.123', 'ana@123.example', 'ana@ex--ample.org',
    `ana@${'a'.repeat(63)}.org`, `ana@${'a'.repeat(64)}.org`, 'ana@example..org', 'ana@.example.org', 'ana@example.org.',
    'ana@@example.org', 'ana@exa_mple.org', 'a"b@example.org', 'ana@[192.0.2.1]', `${'a'.repeat(60)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(60)}.org`,
  ];
  for (const address of samples) assert.equal(parseAddress(address), parseWithParser(address), address);
});

test('5,000 generated dot-atom addresses: the fast path agrees with the parser on each', () => {
  const pick = generator(15);
  for (let i = 0; i < 5000; i++) {
    const local = Array.from({ length: 1 + pick(3) }, () => word(pick, ATEXT, 24)).join('.');
    const host = Array.from({ length: 1 + pick(3) }, () => word(pick, HOST, 20)).join('.');
    const address = `${local}@${host}`;
    assert.equal(parseAddress(address), parseWithParser(address), address);
  }
});
