import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  isIpAllowed,
  normaliseAllowList,
  parseAllowList,
  type AllowList,
} from '../../src/domain/ip-allow-list.ts';

function list(entries: string[]): AllowList {
  const result = parseAllowList(entries);
  assert.equal(result.ok, true, `expected ${JSON.stringify(entries)} to parse`);
  if (!result.ok) throw new Error('unreachable');
  return result.value;
}

test('an empty list allows any address', () => {
  assert.equal(isIpAllowed(list([]), '203.0.113.9'), true);
});

test('an empty list normalises to an empty array', () => {
  assert.deepEqual(normaliseAllowList(list([])), []);
});

test('an IPv4 entry allows exactly that address', () => {
  assert.equal(isIpAllowed(list(['192.0.2.7']), '192.0.2.7'), true);
});

test('an IPv4 entry refuses the neighbouring address', () => {
  assert.equal(isIpAllowed(list(['192.0.2.7']), '192.0.2.8'), false);
});

test('an IPv4 CIDR allows an address inside it', () => {
  assert.equal(isIpAllowed(list(['10.0.0.0/8']), '10.255.3.4'), true);
});

test('an IPv4 CIDR refuses an address outside it', () => {
  assert.equal(isIpAllowed(list(['10.0.0.0/8']), '11.0.0.1'), false);
});

test('an IPv6 entry allows exactly that address, however it is written', () => {
  assert.equal(isIpAllowed(list(['2001:db8::1']), '2001:0db8:0:0:0:0:0:0001'), true);
});

test('an IPv6 entry refuses another address', () => {
  assert.equal(isIpAllowed(list(['::1']), '::2'), false);
});

test('an IPv6 CIDR allows an address inside it', () => {
  assert.equal(isIpAllowed(list(['2001:db8::/32']), '2001:db8:ffff::42'), true);
});

test('an IPv6 CIDR refuses an address outside it', () => {
  assert.equal(isIpAllowed(list(['2001:db8::/32']), '2001:db9::1'), false);
});

test('an IPv4-mapped client address matches an IPv4 entry', () => {
  assert.equal(isIpAllowed(list(['192.0.2.7']), '::ffff:192.0.2.7'), true);
});

test('an IPv4-mapped client address matches an IPv4 CIDR', () => {
  assert.equal(isIpAllowed(list(['198.51.100.0/24']), '::ffff:198.51.100.200'), true);
});

test('an IPv4 client matches an IPv4-mapped entry', () => {
  assert.equal(isIpAllowed(list(['::ffff:192.0.2.7']), '192.0.2.7'), true);
});

test('an IPv4 client matches an IPv4-mapped CIDR', () => {
  assert.equal(isIpAllowed(list(['::ffff:192.0.2.0/120']), '192.0.2.99'), true);
});

test('an IPv4 client does not match an unrelated IPv6 entry', () => {
  assert.equal(isIpAllowed(list(['2001:db8::/32']), '192.0.2.7'), false);
});

test('any entry of the list is enough', () => {
  assert.equal(isIpAllowed(list(['192.0.2.7', '2001:db8::/32']), '2001:db8::9'), true);
});

test('an unparseable client address is refused', () => {
  assert.equal(isIpAllowed(list(['0.0.0.0/0']), 'not-an-ip'), false);
});

test('a shorthand IPv4 client address is refused', () => {
  assert.equal(isIpAllowed(list(['0.0.0.0/0']), '10'), false);
});

test('a client address with a prefix is refused', () => {
  assert.equal(isIpAllowed(list(['10.0.0.0/8']), '10.0.0.1/8'), false);
});

test('a zone id on a client address is ignored', () => {
  assert.equal(isIpAllowed(list(['fe80::/10']), 'fe80::1%eth0'), true);
});

test('normalisation keeps single addresses bare and ranges as network/prefix', () => {
  assert.deepEqual(normaliseAllowList(list(['192.0.2.7', '10.0.0.0/8', '::1', '2001:db8::/32'])), [
    '192.0.2.7',
    '10.0.0.0/8',
    '::1',
    '2001:db8::/32',
  ]);
});

test('normalisation drops a /32 or /128 prefix', () => {
  assert.deepEqual(normaliseAllowList(list(['192.0.2.7/32', '2001:db8::1/128'])), ['192.0.2.7', '2001:db8::1']);
});

test('normalisation clears host bits of a range', () => {
  assert.deepEqual(normaliseAllowList(list(['10.1.2.3/8', '2001:db8:1::1/32'])), ['10.0.0.0/8', '2001:db8::/32']);
});

test('normalisation writes IPv6 in RFC 5952 form', () => {
  assert.deepEqual(normaliseAllowList(list(['2001:0DB8:0:0:0:0:0:0005'])), ['2001:db8::5']);
});

test('normalisation writes IPv4-mapped entries as IPv4', () => {
  assert.deepEqual(normaliseAllowList(list(['::ffff:192.0.2.7', '::ffff:192.0.2.0/120'])), ['192.0.2.7', '192.0.2.0/24']);
});

test('normalisation drops duplicates, keeping the first', () => {
  assert.deepEqual(normaliseAllowList(list(['192.0.2.7', '10.0.0.0/8', '192.0.2.7/32', '::ffff:192.0.2.7'])), [
    '192.0.2.7',
    '10.0.0.0/8',
  ]);
});

test('a normalised list parses back to the same list', () => {
  const canonical = normaliseAllowList(list(['10.1.2.3/8', '::ffff:192.0.2.7', '2001:db8::/32']));
  assert.deepEqual(normaliseAllowList(list(canonical)), canonical);
});

const invalid: readonly string[] = [
  'example.com',
  '',
  '10',
  '010.0.0.1',
  '0x0a.0.0.1',
  '256.0.0.1',
  ' 192.0.2.7',
  '192.0.2.7/33',
  '192.0.2.7/08',
  '192.0.2.7/',
  '/8',
  '10.0.0.0/8/8',
  '2001:db8::/129',
  '1:2:3:4:5:6:7:8:9',
  'fe80::1%eth0',
];

for (const entry of invalid) {
  test(`the entry ${JSON.stringify(entry)} is rejected with its text in the detail`, () => {
    assert.deepEqual(parseAllowList(['192.0.2.7', entry]), {
      ok: false,
      rejection: { code: 'invalidField', detail: `ipAllowList: "${entry}" is not an IP address or CIDR` },
    });
  });
}

test('an invalid entry names itself in the exact detail text', () => {
  assert.deepEqual(parseAllowList(['example.com']), {
    ok: false,
    rejection: { code: 'invalidField', detail: 'ipAllowList: "example.com" is not an IP address or CIDR' },
  });
});

test('a non-string entry is rejected with its text in the detail', () => {
  assert.deepEqual(parseAllowList([42]), {
    ok: false,
    rejection: { code: 'invalidField', detail: 'ipAllowList: "42" is not an IP address or CIDR' },
  });
});

test('a value that is not an array is rejected', () => {
  assert.deepEqual(parseAllowList('192.0.2.7'), {
    ok: false,
    rejection: { code: 'invalidField', detail: 'ipAllowList: must be an array of strings' },
  });
});
