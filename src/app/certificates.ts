import { createHash } from 'node:crypto';
import { base64url, CompactSign, compactVerify, createLocalJWKSet, errors, type JSONWebKeySet } from 'jose';
import {
  certificateUrl, jwksUrl, parseReceiptPayload, receiptPayload, RECEIPT_ALGORITHM, RECEIPT_TYPE,
  type CertificateIssuer, type ReceiptPayload,
} from '../domain/certificate.ts';
import { isJsonObject, ownField } from '../domain/json-object.ts';
import { guardedFetch } from '../channels/guarded-fetch.ts';
import { findCertificate } from '../store/certificates.ts';
import type { Db } from '../store/database.ts';
import { certificateSigningKey, type CertificateSigningKey, type LoadedSigningKey } from './certificate-signing-key.ts';
import type { AppDeps } from './deps.ts';

// Certified delivery's use cases: sign a transport's evidence into a receipt, show a
// stored certificate to its own account, publish the key, and check a receipt and a
// .eml against each other (the CLI's `certificates verify`, and anybody's offline check).

/**
 * Signs evidence into a receipt: a compact JWS, header {alg: EdDSA, kid, typ}, payload
 * the ReceiptPayload as JSON. The outbox calls it before opening the transaction that
 * stores the certificate, so the transaction holds no signing. The key is loaded once
 * (deps.signingKey, the store's); createService loads it at start, so signing needs no query.
 */
export function certificateIssuer(deps: SigningKeyDeps & { readonly publicUrl: string; readonly clock: () => number }): CertificateIssuer {
  return async (subject, evidence) => {
    const key = await signingKeyOf(deps);
    const issuedAt = deps.clock();
    const payload = receiptPayload(subject, evidence, issuedAt, deps.publicUrl);
    const receipt = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader({ alg: RECEIPT_ALGORITHM, kid: key.kid, typ: RECEIPT_TYPE })
      .sign(key.privateKey);
    // latin1: one character per byte, so the stored .eml reads back byte for byte even if
    // a part went out 8bit (nodemailer's own output is 7-bit ASCII, where both agree).
    return { receipt, eml: Buffer.from(evidence.mime).toString('latin1'), url: certificateUrl(deps.publicUrl, subject.msgid), issuedAt };
  };
}

/** GET /v1/email/:msgid/certificate: the receipt, its payload decoded, and where the key and the .eml are. */
export interface CertificateView {
  readonly msgid: string;
  readonly receipt: string;
  readonly evidence: ReceiptPayload;
  readonly jwks_url: string;
  readonly eml_url: string;
}

/** The account's own certificate of a message; undefined for another account's msgid and for a message without one. */
export async function getCertificate(deps: AppDeps, accountId: string, msgid: string): Promise<CertificateView | undefined> {
  const stored = await findCertificate(deps.db, accountId, msgid);
  if (stored === undefined) return undefined;
  const evidence = decodeReceipt(stored.receipt);
  if (evidence === undefined) throw new Error(`the stored receipt of ${msgid} does not decode`);
  return {
    msgid: stored.messageId,
    receipt: stored.receipt,
    evidence,
    jwks_url: jwksUrl(deps.publicUrl),
    eml_url: `${certificateUrl(deps.publicUrl, stored.messageId)}.eml`,
  };
}

/** GET /v1/email/:msgid/certificate.eml: the exact bytes the receipt's sha256 covers. */
export async function getCertifiedEml(deps: AppDeps, accountId: string, msgid: string): Promise<Buffer | undefined> {
  const stored = await findCertificate(deps.db, accountId, msgid);
  return stored === undefined ? undefined : Buffer.from(stored.eml, 'latin1');
}

/** GET /.well-known/jwks.json: the receipt-signing public key (created on first call, as any process would). */
export async function publishedJwks(deps: SigningKeyDeps): Promise<JSONWebKeySet> {
  return (await signingKeyOf(deps)).jwks;
}

/** The store, and its key as loaded once (absent: read from the store each time). */
interface SigningKeyDeps {
  readonly db: Db;
  readonly signingKey?: LoadedSigningKey;
}

const signingKeyOf = (deps: SigningKeyDeps): Promise<CertificateSigningKey> => deps.signingKey?.get() ?? certificateSigningKey(deps.db);

/** A receipt's payload without checking its signature: for showing one herald stored itself. */
export function decodeReceipt(receipt: string): ReceiptPayload | undefined {
  const [, payload] = receipt.split('.');
  if (payload === undefined) return undefined;
  try {
    return parseReceiptPayload(JSON.parse(new TextDecoder().decode(base64url.decode(payload))));
  } catch {
    return undefined;
  }
}

export type ReceiptVerdict =
  | { readonly valid: true; readonly kid: string; readonly payload: ReceiptPayload; readonly sha256: string }
  | { readonly valid: false; readonly reason: string; readonly payload?: ReceiptPayload; readonly sha256: string };

/**
 * Checks a receipt against a key set and a message: the JWS must verify (EdDSA, a key
 * of the set picked by kid, the receipt's typ), its payload must be a receipt, and the
 * SHA-256 of the .eml bytes must equal the receipt's sha256. Never throws.
 */
export async function verifyReceipt(receipt: string, eml: Uint8Array, jwks: JSONWebKeySet): Promise<ReceiptVerdict> {
  const sha256 = createHash('sha256').update(eml).digest('hex');
  let verified;
  try {
    verified = await compactVerify(receipt.trim(), createLocalJWKSet(jwks), { algorithms: [RECEIPT_ALGORITHM] });
  } catch (error) {
    return { valid: false, reason: verificationFailure(error), sha256 };
  }
  if (verified.protectedHeader.typ !== RECEIPT_TYPE) {
    return { valid: false, reason: `the JWS is not a herald delivery receipt (typ ${String(verified.protectedHeader.typ)})`, sha256 };
  }
  let payload: ReceiptPayload | undefined;
  try {
    payload = parseReceiptPayload(JSON.parse(new TextDecoder().decode(verified.payload)));
  } catch {
    payload = undefined;
  }
  if (payload === undefined) return { valid: false, reason: 'the signed payload is not a delivery receipt', sha256 };
  if (payload.sha256 !== sha256) {
    return { valid: false, reason: `the message does not match the receipt: its SHA-256 is ${sha256}, the receipt certifies ${payload.sha256}`, payload, sha256 };
  }
  return { valid: true, kid: verified.protectedHeader.kid ?? '', payload, sha256 };
}

function verificationFailure(error: unknown): string {
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the signature does not verify: the receipt was altered or signed by another key';
  if (error instanceof errors.JWKSNoMatchingKey) return 'no key of the key set matches the receipt (kid)';
  if (error instanceof errors.JWSInvalid) return 'the receipt is not a compact JWS';
  if (error instanceof errors.JOSEAlgNotAllowed) return 'the receipt is not signed with EdDSA';
  return `the receipt does not verify (${error instanceof Error ? error.message : String(error)})`;
}

/** A receipt as saved: the compact JWS itself, or the JSON of GET /v1/email/:msgid/certificate (its `receipt`). */
export function receiptFromFile(text: string): string | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return trimmed === '' ? undefined : trimmed;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    const receipt = isJsonObject(parsed) ? ownField(parsed, 'receipt') : undefined;
    return typeof receipt === 'string' ? receipt : undefined;
  } catch {
    return undefined;
  }
}

/** A JWKS document (`{"keys": [...]}`), or undefined when the text is not one. */
export function parseJwks(text: string): JSONWebKeySet | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    if (!isJsonObject(parsed)) return undefined;
    const keys = ownField(parsed, 'keys');
    return Array.isArray(keys) && keys.every(isJsonObject) ? (parsed as unknown as JSONWebKeySet) : undefined;
  } catch {
    return undefined;
  }
}

const JWKS_MAX_BYTES = 64 * 1024;
const JWKS_TIMEOUT_MS = 10_000;

/**
 * A JWKS fetched from a URL the operator gave (`certificates verify --jwks https://…`),
 * with the guarded fetch's time-out, size limit and redirect checks. Private addresses
 * are allowed: the operator chose the URL (often their own installation on loopback),
 * no tenant can.
 */
export async function fetchJwks(url: string): Promise<{ ok: true; jwks: JSONWebKeySet } | { ok: false; reason: string }> {
  const fetched = await guardedFetch(url, { allowPrivate: true, maxBytes: JWKS_MAX_BYTES, timeoutMs: JWKS_TIMEOUT_MS });
  if (!fetched.ok) return { ok: false, reason: `cannot fetch ${url}: ${fetched.reason}` };
  const jwks = parseJwks(fetched.body.toString('utf8'));
  return jwks === undefined ? { ok: false, reason: `${url} is not a JWKS document` } : { ok: true, jwks };
}
