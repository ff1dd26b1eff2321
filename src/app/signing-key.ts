import { randomBytes } from 'node:crypto';
import type { Db } from '../store/database.ts';
import { putSettingIfAbsent } from '../store/settings.ts';

const SETTING = 'api_key_signing_secret';

/**
 * The HMAC secret that signs API keys (JWT, HS256). Created once per installation and
 * kept in the database, so every process of a deployment verifies the same keys.
 */
export async function loadSigningSecret(db: Db): Promise<Uint8Array> {
  const stored = await putSettingIfAbsent(db, SETTING, randomBytes(32).toString('base64url'));
  return Buffer.from(stored, 'base64url');
}
