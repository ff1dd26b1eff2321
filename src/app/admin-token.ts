import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../store/database.ts';
import { putSettingIfAbsent } from '../store/settings.ts';

const SETTING = 'admin_token_sha256';

const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();

export interface AdminTokenCheck {
  /** Constant-time comparison of a presented token with the configured or stored one. */
  readonly verify: (presented: string) => boolean;
  /** Set only on the very first start without HERALD_ADMIN_TOKEN: print it once, then it is gone. */
  readonly createdToken: string | undefined;
}

function checkerFor(expectedHash: Buffer): (presented: string) => boolean {
  // Hashing both sides gives equal-length buffers, so timingSafeEqual never throws
  // and the comparison time does not depend on the presented token's length.
  return (presented) => timingSafeEqual(sha256(presented), expectedHash);
}

export async function prepareAdminToken(db: Db, configured: string | undefined): Promise<AdminTokenCheck> {
  if (configured !== undefined) return { verify: checkerFor(sha256(configured)), createdToken: undefined };
  const candidate = `herald_admin_${randomBytes(24).toString('base64url')}`;
  const candidateHash = sha256(candidate).toString('hex');
  const storedHash = await putSettingIfAbsent(db, SETTING, candidateHash);
  // Only the hash is stored: the token can be shown this once and never recovered.
  return { verify: checkerFor(Buffer.from(storedHash, 'hex')), createdToken: storedHash === candidateHash ? candidate : undefined };
}
