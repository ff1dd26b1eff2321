// Receipts: signing evidence with the installation's Ed25519 key, the key kept once
// per installation, and checking a receipt and a message against each other.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompactSign, exportJWK, generateKeyPair, type JSONWebKeySet } from 'jose';
import { certificateSigningKey } from '../../src/app/certificate-signing-key.ts';
import { certificateIssuer, publishedJwks, receiptFromFile, verifyReceipt } from '../../src/app/certificates.ts';
import type { DeliveryEvidence } from '../../src/domain/certificate.ts';
import { openStore } from '../../src/store/dialect.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import type { Db } from '../../src/store/database.ts';

const AT = Date.UTC(2026, 4, 5, 6, 7, 8);
const MIME = Buffer.from('From: news@example.com\r\nTo: ana@example.org\r\nSubject: Hello\r\n\r\nHi\r\n');

const EVIDENCE: DeliveryEvidence = {
  delivery: 'mx', from: 'news@example.com', recipient: 'ana@example.org', subject: 'Hello',
  mime: MIME, sha256: createHash('sha256').update(MIME).digest('hex'),
  host: 'mx1.example.org', ip: '192.0.2.25', transcript: ['S: 220 mx1.example.org ESMTP', 'C: DATA', 'S: 250 2.0.0 Ok: queued as 4F9A61C0123'],
  smtpResponse: '250 2.0.0 Ok: queued as 4F9A61C0123', queueId: '4F9A61C0123', connectedAt: AT - 120, acceptedAt: AT - 20,
};

/** A migrated store on a fresh SQLite file; `handles` opens that many connections to it (processes of one installation). */
async function installation(t: TestContext, handles = 1): Promise<Db[]> {
  const dir = mkdtempSync(join(tmpdir(), 'herald-certs-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const stores = Array.from({ length: handles }, () => openStore(`sqlite:${join(dir, 'h.db')}`));
  t.after(async () => { for (const store of stores) await store.db.destroy(); });
  await migrateToLatest(stores[0]!.db);
  return stores.map((s) => s.db);
}

async function issued(t: TestContext): Promise<{ receipt: string; eml: Buffer; jwks: JSONWebKeySet }> {
  const [db] = await installation(t);
  const issue = certificateIssuer({ db: db!, publicUrl: 'https://herald.example.com', clock: () => AT });
  const certificate = await issue({ msgid: '0190f3a2-7b1c-7d4e-8f5a-9b0c1d2e3f4a', accountId: 'acct-1' }, EVIDENCE);
  return { receipt: certificate.receipt, eml: Buffer.from(certificate.eml, 'latin1'), jwks: await publishedJwks({ db: db! }) };
}

test('a receipt and its untouched message verify, with the signed evidence', async (t) => {
  const { receipt, eml, jwks } = await issued(t);
  const verdict = await verifyReceipt(receipt, eml, jwks);

  assert.equal(verdict.valid, true);
  assert.deepStrictEqual(verdict.payload, {
    msgid: '0190f3a2-7b1c-7d4e-8f5a-9b0c1d2e3f4a', account: 'acct-1', from: 'news@example.com', recipient: 'ana@example.org',
    subject: 'Hello', delivery: 'mx', sha256: EVIDENCE.sha256, mx_host: 'mx1.example.org', mx_ip: '192.0.2.25',
    smtp_transcript: EVIDENCE.transcript, smtp_response: '250 2.0.0 Ok: queued as 4F9A61C0123', queue_id: '4F9A61C0123',
    connected_at: '2026-05-05T06:07:07.880Z', accepted_at: '2026-05-05T06:07:07.980Z', issued_at: '2026-05-05T06:07:08.000Z',
    issuer: 'https://herald.example.com',
  });
});

test('the stored .eml is the evidence bytes, one for one', async (t) => {
  const { eml } = await issued(t);
  assert.ok(eml.equals(MIME));
});

test('a message with one byte changed does not verify, and the verdict says whose hash is whose', async (t) => {
  const { receipt, eml, jwks } = await issued(t);
  const altered = Buffer.from(eml);
  altered[altered.length - 3] = 0x69 ^ 0x20; // "Hi" → "HI"
  const verdict = await verifyReceipt(receipt, altered, jwks);

  const alteredHash = createHash('sha256').update(altered).digest('hex');
  assert.deepStrictEqual([verdict.valid, verdict.valid ? '' : verdict.reason], [
    false, `the message does not match the receipt: its SHA-256 is ${alteredHash}, the receipt certifies ${EVIDENCE.sha256}`,
  ]);
});

test('a receipt whose payload was altered does not verify', async (t) => {
  const { receipt, eml, jwks } = await issued(t);
  const [header, payload, signature] = receipt.split('.');
  const forged = JSON.parse(Buffer.from(payload!, 'base64url').toString());
  forged.recipient = 'mallory@example.org';
  const tampered = `${header}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${signature}`;

  const verdict = await verifyReceipt(tampered, eml, jwks);
  assert.deepStrictEqual([verdict.valid, verdict.valid ? '' : verdict.reason], [false, 'the signature does not verify: the receipt was altered or signed by another key']);
});

test("a receipt does not verify with another installation's key set", async (t) => {
  const { receipt, eml } = await issued(t);
  const other = await issued(t);
  const verdict = await verifyReceipt(receipt, eml, other.jwks);
  assert.deepStrictEqual([verdict.valid, verdict.valid ? '' : verdict.reason], [false, 'no key of the key set matches the receipt (kid)']);
});

test('a JWS the same key signed for something else is not a receipt', async (t) => {
  const [db] = await installation(t);
  const key = await certificateSigningKey(db!);
  const other = await new CompactSign(new TextEncoder().encode('{"sub":"x"}')).setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'JWT' }).sign(key.privateKey);

  const verdict = await verifyReceipt(other, MIME, key.jwks);
  assert.deepStrictEqual([verdict.valid, verdict.valid ? '' : verdict.reason], [false, 'the JWS is not a herald delivery receipt (typ JWT)']);
});

test('a receipt signed with another algorithm is refused even if the key set has a matching key', async (t) => {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'k1' };
  delete jwk.d;
  const es256 = await new CompactSign(new TextEncoder().encode('{}')).setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'herald-delivery-receipt+jws' }).sign(privateKey);

  const verdict = await verifyReceipt(es256, MIME, { keys: [jwk] });
  assert.deepStrictEqual([verdict.valid, verdict.valid ? '' : verdict.reason], [false, 'the receipt is not signed with EdDSA']);
});

test('processes of one installation that start together end up with one signing key', async (t) => {
  const handles = await installation(t, 3);
  const keys = await Promise.all(handles.map((db) => certificateSigningKey(db)));
  assert.equal(new Set(keys.map((k) => k.kid)).size, 1);
  assert.deepStrictEqual(keys[1]?.jwks, keys[0]?.jwks);
});

test('the published key set holds the public key only, with its kid', async (t) => {
  const [db] = await installation(t);
  const key = await certificateSigningKey(db!);
  const jwks = await publishedJwks({ db: db! });
  assert.deepStrictEqual(Object.keys(jwks.keys[0] ?? {}).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x']);
  assert.equal(jwks.keys[0]?.kid, key.kid);
});

test('a saved receipt is read from the bare JWS or from the certificate JSON', () => {
  assert.deepStrictEqual(
    [receiptFromFile('a.b.c\n'), receiptFromFile('{"msgid":"m","receipt":"a.b.c"}'), receiptFromFile('{"msgid":"m"}'), receiptFromFile('{not json'), receiptFromFile('  ')],
    ['a.b.c', 'a.b.c', undefined, undefined, undefined],
  );
});
