// Signed tracking tokens: what they carry, and everything that makes one refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hkdfSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { DEFAULT_TRACKED_LINK_DAYS, TOKEN_LIFETIME_SECONDS, trackingTokens } from '../../src/domain/tracking-token.ts';

const SECRET = new Uint8Array(32).fill(1);
const tokens = trackingTokens(SECRET);
const NOW = Date.UTC(2025, 0, 1);
const DAY_MS = 86_400_000;
const MSG = '0190f3a2-7b1c-7d4e-8f5a-9b0c1d2e3f4a';
const ACCOUNT = '0190f3a2-0000-7000-8000-000000000001';
const CLICK = { kind: 'click', accountId: ACCOUNT, msgid: MSG, url: 'https://example.com/offer?id=7' } as const;

/** The token with one character of its payload part changed. */
function altered(token: string): string {
  const [header, payload, signature] = token.split('.');
  const body = payload ?? '';
  const swapped = body.slice(0, 10) + (body[10] === 'A' ? 'B' : 'A') + body.slice(11);
  return `${header}.${swapped}.${signature}`;
}

test('a click token verifies to its account, message and destination', async () => {
  const token = await tokens.sign(CLICK, NOW);
  assert.deepStrictEqual(await tokens.verify(token, 'click', NOW), CLICK);
});

test('open and unsubscribe tokens verify to their account and message', async () => {
  for (const kind of ['open', 'unsubscribe'] as const) {
    const token = await tokens.sign({ kind, accountId: ACCOUNT, msgid: MSG }, NOW);
    assert.deepStrictEqual(await tokens.verify(token, kind, NOW), { kind, accountId: ACCOUNT, msgid: MSG });
  }
});

test('a token of one kind is refused where another kind is expected', async () => {
  const open = await tokens.sign({ kind: 'open', accountId: ACCOUNT, msgid: MSG }, NOW);
  assert.equal(await tokens.verify(open, 'unsubscribe', NOW), undefined);
  assert.equal(await tokens.verify(open, 'click', NOW), undefined);
});

test('a token with an altered payload is refused', async () => {
  const token = await tokens.sign(CLICK, NOW);
  assert.equal(await tokens.verify(altered(token), 'click', NOW), undefined);
});

test('a click token re-signed for another URL with a different key is refused', async () => {
  const forged = await new SignJWT({ k: 'c', a: ACCOUNT, m: MSG, u: 'https://evil.example.net/' })
    .setProtectedHeader({ alg: 'HS256' }).setExpirationTime(Math.floor(NOW / 1000) + 3600).sign(new Uint8Array(32).fill(2));
  assert.equal(await tokens.verify(forged, 'click', NOW), undefined);
});

test('a token signed with the raw installation secret (as API keys are) is refused: the tracking key is derived', async () => {
  const raw = await new SignJWT({ k: 'o', a: ACCOUNT, m: MSG })
    .setProtectedHeader({ alg: 'HS256' }).setExpirationTime(Math.floor(NOW / 1000) + 3600).sign(SECRET);
  assert.equal(await tokens.verify(raw, 'open', NOW), undefined);
});

test('an unsigned token (alg none) is refused', async () => {
  const payload = Buffer.from(JSON.stringify({ k: 'o', a: ACCOUNT, m: MSG, exp: Math.floor(NOW / 1000) + 3600 })).toString('base64url');
  const header = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
  assert.equal(await tokens.verify(`${header}.${payload}.`, 'open', NOW), undefined);
  assert.equal(await tokens.verify(`${header}.${payload}.x`, 'open', NOW), undefined);
});

test('a click token is refused once its lifetime (90 days by default) has passed, and accepted the second before', async () => {
  const token = await tokens.sign(CLICK, NOW);
  assert.deepStrictEqual(await tokens.verify(token, 'click', NOW + 90 * DAY_MS - 1000), CLICK);
  assert.equal(await tokens.verify(token, 'click', NOW + 90 * DAY_MS), undefined);
});

test('an open token is refused once its lifetime has passed, and accepted the second before', async () => {
  const token = await tokens.sign({ kind: 'open', accountId: ACCOUNT, msgid: MSG }, NOW);
  assert.ok(await tokens.verify(token, 'open', NOW + 365 * DAY_MS - 1000));
  assert.equal(await tokens.verify(token, 'open', NOW + 365 * DAY_MS), undefined);
});

test('the lifetimes are one year for opens, two years for unsubscribes, and the tracked-link setting (default 90 days) for clicks', () => {
  assert.deepStrictEqual(TOKEN_LIFETIME_SECONDS, { open: 365 * 86_400, unsubscribe: 730 * 86_400 });
  assert.equal(DEFAULT_TRACKED_LINK_DAYS, 90);
});

test('a click token lives as long as the tracked-link setting says when it is followed, whatever it was when signed', async () => {
  const long = trackingTokens(SECRET, { trackedLinkDays: 365 });
  const token = await long.sign(CLICK, NOW);
  assert.deepStrictEqual(await long.verify(token, 'click', NOW + 200 * DAY_MS), CLICK);
  // The operator lowered the setting: the same token stops at 30 days.
  const short = trackingTokens(SECRET, { trackedLinkDays: 30 });
  assert.deepStrictEqual(await short.verify(token, 'click', NOW + 30 * DAY_MS - 1000), CLICK);
  assert.equal(await short.verify(token, 'click', NOW + 30 * DAY_MS), undefined);
});

test('a click token signed before tokens carried iat (two years, no iat) is held to the setting from its exp less two years', async () => {
  const key = new Uint8Array(hkdfSync('sha256', SECRET, new Uint8Array(0), 'herald tracking tokens v1', 32));
  const legacy = await new SignJWT({ k: 'c', a: ACCOUNT, m: MSG, u: CLICK.url })
    .setProtectedHeader({ alg: 'HS256' }).setExpirationTime(NOW / 1000 + 730 * 86_400).sign(key);
  assert.deepStrictEqual(await tokens.verify(legacy, 'click', NOW + 90 * DAY_MS - 1000), CLICK);
  assert.equal(await tokens.verify(legacy, 'click', NOW + 90 * DAY_MS), undefined);
});

test('text that is not a compact JWS, or is over 4,096 characters, is refused', async () => {
  for (const token of ['', 'abc', 'a.b', 'a.b.c.d', 'a.b.c', `${'a'.repeat(4095)}.b.c`, 'a b.c.d']) {
    assert.equal(await tokens.verify(token, 'open', NOW), undefined, token.slice(0, 20));
  }
});

test('a click token can only be made for an absolute http(s) URL', async () => {
  for (const url of ['javascript:alert(1)', '/relative', 'mailto:a@example.com', `https://example.com/${'x'.repeat(2048)}`]) {
    await assert.rejects(tokens.sign({ ...CLICK, url }, NOW), { message: 'a click token needs an absolute http(s) URL' });
  }
});

test('signing is deterministic: the same claims at the same time give the same token', async () => {
  assert.equal(await tokens.sign(CLICK, NOW), await tokens.sign(CLICK, NOW));
});

test('a token is the compact JWS jose writes for the same claims and key, byte for byte', async () => {
  const key = new Uint8Array(hkdfSync('sha256', SECRET, new Uint8Array(0), 'herald tracking tokens v1', 32));
  const expected = await new SignJWT({ k: 'c', a: ACCOUNT, m: MSG, u: CLICK.url })
    .setProtectedHeader({ alg: 'HS256' }).setIssuedAt(NOW / 1000).setExpirationTime(NOW / 1000 + 90 * 86_400).sign(key);
  assert.equal(await tokens.sign(CLICK, NOW), expected);
});
