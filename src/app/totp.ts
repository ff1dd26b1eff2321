import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

// The optional second factor: TOTP (RFC 6238) through otpauth, as authenticator apps
// expect it (SHA-1, 6 digits, 30 s). A code is accepted one step either side of now,
// and never twice (the store keeps the last accepted step). The secret has to be read
// back to check a code, so it is stored encrypted: AES-256-GCM under a key derived
// (HKDF) from the service's signing secret, so a copy of the users table alone does
// not give the second factor away.

const ISSUER = 'herald';
const PERIOD_S = 30;
const WINDOW = 1;

export interface TotpCipher {
  encrypt(base32: string): string;
  decrypt(stored: string): string;
}

export function totpCipher(signingSecret: Uint8Array): TotpCipher {
  const key = Buffer.from(hkdfSync('sha256', signingSecret, Buffer.alloc(0), 'herald totp secret', 32));
  return {
    encrypt(base32) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(base32, 'utf8'), cipher.final()]);
      return ['v1', iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    },
    decrypt(stored) {
      const [version, iv, body, tag] = stored.split('.');
      if (version !== 'v1' || iv === undefined || body === undefined || tag === undefined) throw new Error('unreadable stored TOTP secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

const totpOf = (base32: string, label: string): TOTP =>
  new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: 6, period: PERIOD_S, secret: Secret.fromBase32(base32) });

/** A new secret (160 bits, as RFC 4226 recommends) and its otpauth:// URL for a QR code. */
export function newTotpSecret(label: string): { secret: string; otpauthUrl: string } {
  const secret = new Secret({ size: 20 }).base32;
  return { secret, otpauthUrl: totpOf(secret, label).toString() };
}

/** The time step the code belongs to, or undefined when it matches none within the window. */
export function totpStep(base32: string, code: string, now: number): number | undefined {
  const token = code.replace(/\s+/g, '');
  if (!/^[0-9]{6}$/.test(token)) return undefined;
  const totp = totpOf(base32, '');
  const delta = totp.validate({ token, timestamp: now, window: WINDOW });
  return delta === null ? undefined : totp.counter({ timestamp: now }) + delta;
}

