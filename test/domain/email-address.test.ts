import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { domainOf, parseAddress } from '../../src/domain/email-address.ts';

describe('parseAddress accepts', () => {
  test('a plain address', () => {
    assert.equal(parseAddress('ana@example.com'), 'ana@example.com');
  });

  test('an address with surrounding spaces, returned trimmed', () => {
    assert.equal(parseAddress('  ana@example.com '), 'ana@example.com');
  });

  test('a unicode local part', () => {
    assert.equal(parseAddress('josé@example.com'), 'josé@example.com');
  });

  test('an internationalised domain name', () => {
    assert.equal(parseAddress('ana@münchen.de'), 'ana@münchen.de');
  });

  test('a quoted local part with a space, quotes kept', () => {
    assert.equal(parseAddress('"a b"@example.com'), '"a b"@example.com');
  });

  test('plus tags, dots and hyphens', () => {
    assert.equal(parseAddress('first.last+tag@mail-01.example.co.uk'), 'first.last+tag@mail-01.example.co.uk');
  });

  test('a local part of exactly 64 octets', () => {
    const address = `${'x'.repeat(64)}@example.com`;
    assert.equal(parseAddress(address), address);
  });

  test('a domain label of exactly 63 characters', () => {
    const address = `a@${'b'.repeat(63)}.com`;
    assert.equal(parseAddress(address), address);
  });
});

describe('parseAddress rejects', () => {
  test('a display name with angle brackets', () => {
    assert.equal(parseAddress('Foo <a@example.com>'), null);
  });

  test('angle brackets alone', () => {
    assert.equal(parseAddress('<a@example.com>'), null);
  });

  test('a comment', () => {
    assert.equal(parseAddress('a(comment)@example.com'), null);
  });

  test('a trailing comment', () => {
    assert.equal(parseAddress('a@example.com (comment)'), null);
  });

  test('whitespace inside the address', () => {
    assert.equal(parseAddress('a @example.com'), null);
  });

  test('a group', () => {
    assert.equal(parseAddress('friends: a@example.com;'), null);
  });

  test('two addresses', () => {
    assert.equal(parseAddress('a@example.com, b@example.com'), null);
  });

  test('a domain without a dot', () => {
    assert.equal(parseAddress('a@b'), null);
  });

  test('a doubled at sign', () => {
    assert.equal(parseAddress('a@@example.com'), null);
  });

  test('a missing at sign', () => {
    assert.equal(parseAddress('example.com'), null);
  });

  test('an empty string', () => {
    assert.equal(parseAddress(''), null);
  });

  test('only whitespace', () => {
    assert.equal(parseAddress('   '), null);
  });

  test('a trailing dot in the domain', () => {
    assert.equal(parseAddress('a@example.com.'), null);
  });

  test('a leading dot in the local part', () => {
    assert.equal(parseAddress('.a@example.com'), null);
  });

  test('a domain label starting with a hyphen', () => {
    assert.equal(parseAddress('a@-x.example.com'), null);
  });

  test('a domain label ending with a hyphen', () => {
    assert.equal(parseAddress('a@x-.example.com'), null);
  });

  test('an underscore in the domain', () => {
    assert.equal(parseAddress('a@x_y.com'), null);
  });

  test('an address literal', () => {
    assert.equal(parseAddress('a@[192.0.2.1]'), null);
  });

  test('a bare IPv4 address as domain', () => {
    assert.equal(parseAddress('a@192.0.2.1'), null);
  });

  test('a lone high surrogate in the local part', () => {
    assert.equal(parseAddress('ana\ud800@example.org'), null);
  });

  test('a lone low surrogate in the domain', () => {
    assert.equal(parseAddress('ana@exa\udfffmple.org'), null);
  });

  test('an ideographic full stop posing as a dot', () => {
    assert.equal(parseAddress('a@example\u3002com'), null);
  });

  test('a local part of 65 octets', () => {
    assert.equal(parseAddress(`${'x'.repeat(65)}@example.com`), null);
  });

  test('a local part over 64 octets counted in UTF-8, not characters', () => {
    assert.equal(parseAddress(`${'é'.repeat(33)}@example.com`), null);
  });

  test('a domain label of 64 characters', () => {
    assert.equal(parseAddress(`a@${'b'.repeat(64)}.com`), null);
  });

  test('a domain whose ASCII (punycode) form is longer than 253 characters', () => {
    // 153 octets as sent, but each `ü.` label becomes `xn--tda.` on the wire: 403 characters.
    assert.equal(parseAddress(`a@${'ü.'.repeat(50)}com`), null);
  });

  test('a whole address longer than 254 octets', () => {
    // The domain alone is 253 characters, the maximum a domain may have.
    const domain = `${Array.from({ length: 3 }, () => 'd'.repeat(63)).join('.')}.${'e'.repeat(57)}.com`;
    assert.equal(parseAddress(`${'x'.repeat(10)}@${domain}`), null);
  });

  test('a trailing line feed', () => {
    assert.equal(parseAddress('a@example.com\n'), null);
  });

  test('CR LF folded inside a quoted local part', () => {
    assert.equal(parseAddress('"a\r\n b"@example.com'), null);
  });

  test('a NUL character', () => {
    assert.equal(parseAddress('a\u0000b@example.com'), null);
  });

  test('a C1 control character', () => {
    assert.equal(parseAddress('a\u0085b@example.com'), null);
  });

  test('a right-to-left override character', () => {
    assert.equal(parseAddress('a@\u202eexample.com'), null);
  });
});

describe('domainOf', () => {
  test('returns the lower-cased part after the last at sign', () => {
    assert.equal(domainOf('"a@b"@Mail.Example.COM'), 'mail.example.com');
  });
});
