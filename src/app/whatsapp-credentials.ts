import { findWhatsappCredentials } from '../store/accounts.ts';
import type { AppDeps } from './deps.ts';

/**
 * The credentials look-up the Cloud API transport is given: read per send, so a
 * token the operator rotates is used from the next message on, without a restart.
 */
export function whatsappCredentials(deps: Pick<AppDeps, 'db'>): (accountId: string) => Promise<{ phoneNumberId: string; accessToken: string } | undefined> {
  return (accountId) => findWhatsappCredentials(deps.db, accountId);
}
