// The per-message envelope sender: its tag (a truncated HMAC of the msgid under the
// installation secret) and how an address of the bounce domain is read back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseVerp, VERP_TAG_LENGTH, verpTags } from '../../src/domain/verp-address.ts';

const MSGID = '01960000-0000-7000-8000-00000000abcd';
const OTHER = '01960000-0000-7000-8000-00000000abce';
const SECRET = new Uint8Array(32).fill(7);
const DOMAIN = 'bounces.herald.test';

test('the address is b+<msgid>-<tag>@<bounce domain>, the tag 16 lower-case hex digits', () => {
  const address = verpTags(SECRET).address(MSGID, DOMAIN);
  assert.match(address, new RegExp(`^b\\+${MSGID}-[0-9a-f]{${VERP_TAG_LENGTH}}@${DOMAIN.replaceAll('.', '\\.')}$`));
  assert.equal(VERP_TAG_LENGTH, 16);
});

test('the tag verifies for its msgid, in any case, and not for another msgid or another secret', () => {
  const tags = verpTags(SECRET);
  const tag = parseVerp(tags.address(MSGID, DOMAIN), DOMAIN)?.tag ?? '';
  assert.equal(tags.verify(MSGID, tag), true);
  assert.equal(tags.verify(MSGID, tag.toUpperCase()), true);
  assert.equal(tags.verify(OTHER, tag), false);
  assert.equal(verpTags(new Uint8Array(32).fill(8)).verify(MSGID, tag), false);
  assert.equal(tags.verify(MSGID, tag.slice(0, -1)), false);
  assert.equal(tags.verify(MSGID, ''), false);
});

test('an address of the bounce domain is read with its tag, or with none when it was written before tags', () => {
  assert.deepStrictEqual(
    [
      `b+${MSGID}-0123456789abcdef@${DOMAIN}`, `<B+${MSGID.toUpperCase()}-0123456789ABCDEF@Bounces.Herald.Test>`, `b+${MSGID}@${DOMAIN}`,
      `b+${MSGID}-short@${DOMAIN}`,
    ].map((a) => parseVerp(a, DOMAIN)),
    [{ msgid: MSGID, tag: '0123456789abcdef' }, { msgid: MSGID, tag: '0123456789abcdef' }, { msgid: MSGID, tag: null }, { msgid: MSGID, tag: 'short' }],
  );
});

test('any other address is not a VERP address', () => {
  assert.deepStrictEqual(
    [
      `b+${MSGID}-0123456789abcdef@other.example`, `b+not-a-uuid@${DOMAIN}`, `${MSGID}@${DOMAIN}`, `postmaster@${DOMAIN}`,
      `b+${MSGID}-@${DOMAIN}`, `b+${MSGID}x@${DOMAIN}`, `b+${MSGID}-a.b@${DOMAIN}`,
    ].map((a) => parseVerp(a, DOMAIN)),
    [null, null, null, null, null, null, null],
  );
});
