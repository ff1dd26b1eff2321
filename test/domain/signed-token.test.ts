// The one module for signed tokens (src/domain/signed-token.ts): keys derived per purpose,
// tokens that jose writes and reads alike, expiry told apart from forgery.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, hkdfSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { purposeKey, signedTokens } from '../../src/domain/signed-token.ts';
import { confirmationTokens } from '../../src/campaigns/consent-token.ts';

const SECRET = new Uint8Array(32).fill(7);
const LABEL = 'herald test tokens v1';
const NOW = Date.UTC(2025, 0, 1);
const EXP = Math.floor(NOW / 1000) + 3600;
const derived = (label: string): Uint8Array => new Uint8Array(hkdfSync('sha256', SECRET, new Uint8Array(0), label, 32));
const tokens = signedTokens(SECRET, LABEL, { maxLength: 1024 });

test('a token verifies to its claims and its exp', async () => {
  const checked = await tokens.verify(tokens.sign({ k: 'x', a: 'acct' }, EXP), NOW);
  assert.deepStrictEqual(checked, { kind: 'valid', payload: { k: 'x', a: 'acct', exp: EXP } });
});

test('a token is byte for byte the one jose writes with the key HKDF derives from the secret and label', async () => {
  const jose = await new SignJWT({ k: 'x', a: 'acct' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(EXP).sign(derived(LABEL));
  assert.equal(tokens.sign({ k: 'x', a: 'acct' }, EXP), jose);
});

test('a confirmation link signed by jose as before verifies to its account, contact and list', async () => {
  const before = await new SignJWT({ k: 'confirm', a: 'acct', c: 'contact', l: 'list' })
    .setProtectedHeader({ alg: 'HS256' }).setExpirationTime(EXP).sign(derived('herald consent tokens v1'));
  assert.deepStrictEqual(await confirmationTokens(SECRET).verify(before, NOW), { kind: 'valid', claims: { accountId: 'acct', contactId: 'contact', listId: 'list' } });
});

test('a token of ours past its exp is expired, and at the second before it is valid', async () => {
  const token = tokens.sign({ k: 'x' }, EXP);
  assert.equal((await tokens.verify(token, (EXP - 1) * 1000)).kind, 'valid');
  assert.deepStrictEqual(await tokens.verify(token, EXP * 1000), { kind: 'expired' });
});

test('a token of another purpose\'s label is invalid, even expired', async () => {
  const other = signedTokens(SECRET, 'herald other tokens v1', { maxLength: 1024 });
  assert.deepStrictEqual(await tokens.verify(other.sign({ k: 'x' }, EXP), NOW), { kind: 'invalid' });
  assert.deepStrictEqual(await tokens.verify(other.sign({ k: 'x' }, EXP - 7200), NOW), { kind: 'invalid' });
});

test('a token without exp is invalid', async () => {
  const noExp = await new SignJWT({ k: 'x' }).setProtectedHeader({ alg: 'HS256' }).sign(derived(LABEL));
  assert.deepStrictEqual(await tokens.verify(noExp, NOW), { kind: 'invalid' });
});

test('text over the length limit or not a compact JWS is invalid', async () => {
  const long = tokens.sign({ k: 'x'.repeat(1024) }, EXP);
  assert.deepStrictEqual(await tokens.verify(long, NOW), { kind: 'invalid' });
  assert.deepStrictEqual(await tokens.verify('not a token', NOW), { kind: 'invalid' });
});

test('the purpose key is the HKDF of the secret with the label, the same object each time', () => {
  const key = purposeKey(SECRET, LABEL);
  assert.equal(createHmac('sha256', key).update('m').digest('hex'), createHmac('sha256', derived(LABEL)).update('m').digest('hex'));
  assert.equal(purposeKey(SECRET, LABEL), key);
});
