import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JSONWebKeySet, type JWK } from 'jose';
import { RECEIPT_ALGORITHM } from '../domain/certificate.ts';
import type { Db } from '../store/database.ts';
import { getSetting, putSettingIfAbsent } from '../store/settings.ts';

const SETTING = 'certificate_signing_key';

/** The Ed25519 key that signs delivery receipts, and its public half as published. */
export interface CertificateSigningKey {
  /** RFC 7638 thumbprint of the public key: the JWS header's `kid`. */
  readonly kid: string;
  readonly privateKey: CryptoKey;
  /** `/.well-known/jwks.json`: the public key alone. */
  readonly jwks: JSONWebKeySet;
}

/**
 * The installation's receipt-signing key, created on first use and kept in the
 * settings table: every process of a deployment signs with, and publishes, the same
 * key (putSettingIfAbsent: the first writer wins a race, the others adopt its key).
 */
export function certificateSigningKey(db: Db): Promise<CertificateSigningKey> {
  return loadOrCreate(db);
}

/**
 * The signing key of one store, loaded once: it never changes while the process runs
 * (no rotation yet), and signing must not need a query. A failed load is forgotten, so
 * the next caller tries again. service.ts makes one per store and passes it in AppDeps.
 */
export class LoadedSigningKey {
  readonly #db: Db;
  #key: Promise<CertificateSigningKey> | undefined;

  constructor(db: Db) {
    this.#db = db;
  }

  get(): Promise<CertificateSigningKey> {
    if (this.#key === undefined) {
      const key = loadOrCreate(this.#db);
      key.catch(() => {
        if (this.#key === key) this.#key = undefined;
      });
      this.#key = key;
    }
    return this.#key;
  }
}

/** The published key set without creating a key: empty when this installation never signed a receipt. */
export async function existingCertificateJwks(db: Db): Promise<JSONWebKeySet> {
  const stored = await getSetting(db, SETTING);
  return stored === undefined ? { keys: [] } : (await fromStored(stored)).jwks;
}

async function loadOrCreate(db: Db): Promise<CertificateSigningKey> {
  const existing = await getSetting(db, SETTING);
  return fromStored(existing ?? (await putSettingIfAbsent(db, SETTING, await newPrivateJwk())));
}

async function newPrivateJwk(): Promise<string> {
  const { privateKey } = await generateKeyPair(RECEIPT_ALGORITHM, { crv: 'Ed25519', extractable: true });
  const jwk = await exportJWK(privateKey);
  return JSON.stringify({ ...jwk, kid: await calculateJwkThumbprint(jwk), alg: RECEIPT_ALGORITHM, use: 'sig' });
}

async function fromStored(stored: string): Promise<CertificateSigningKey> {
  let jwk: JWK;
  try {
    jwk = JSON.parse(stored) as JWK;
  } catch {
    throw new Error(`setting ${SETTING} is not a JSON Web Key`);
  }
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.kid !== 'string' || typeof jwk.x !== 'string' || typeof jwk.d !== 'string') {
    throw new Error(`setting ${SETTING} is not an Ed25519 private key with a kid`);
  }
  const privateKey = await importJWK(jwk, RECEIPT_ALGORITHM);
  if (privateKey instanceof Uint8Array) throw new Error(`setting ${SETTING} imported as a secret, not a key pair`);
  const publicJwk: JWK = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, kid: jwk.kid, alg: RECEIPT_ALGORITHM, use: 'sig' };
  return { kid: jwk.kid, privateKey, jwks: { keys: [publicJwk] } };
}
