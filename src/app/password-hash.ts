import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// Passwords are hashed with scrypt from node:crypto, a memory-hard KDF. Parameters are
// OWASP's scrypt row N=2^16, r=8, p=2: 64 MiB and ~0.2–0.4 s per hash on this class of
// machine (measured: N=2^16 alone 0.4 s on a loaded 2-core box). They are written into
// each hash, so raising them later leaves old hashes readable. Four hashes at once at
// most (libuv's pool), so the memory a burst of sign-ins takes stays near 256 MiB.

const PARAMETERS = { N: 2 ** 16, r: 8, p: 2 } as const;
const KEY_LENGTH = 32;
const SALT_BYTES = 16;
/** scrypt needs 128·N·r bytes (+ p·128·r); node's default ceiling is 32 MiB. */
const maxmemOf = (N: number, r: number, p: number): number => 128 * N * r + 128 * r * p + 1024 * 1024;

function derive(password: string, salt: Buffer, options: { N: number; r: number; p: number }): Promise<Buffer> {
  const scryptOptions: ScryptOptions = { ...options, maxmem: maxmemOf(options.N, options.r, options.p) };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, scryptOptions, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** `scrypt$N$r$p$<salt b64url>$<key b64url>` */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, PARAMETERS);
  return ['scrypt', PARAMETERS.N, PARAMETERS.r, PARAMETERS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

// A hash of nothing anyone knows: checking it costs what a real check costs, so a
// sign-in for an unknown address takes as long as one with a wrong password.
let decoy: Promise<string> | undefined;

/** Constant-time check of a password against a stored hash; `null` (no user, no password yet) checks a decoy and fails. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const hash = stored ?? (await (decoy ??= hashPassword(randomBytes(16).toString('hex'))));
  const parts = hash.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const salt = Buffer.from(parts[4] ?? '', 'base64url');
  const expected = Buffer.from(parts[5] ?? '', 'base64url');
  const key = await derive(password, salt, { N, r, p });
  return stored !== null && key.length === expected.length && timingSafeEqual(key, expected);
}
