import { randomBytes } from 'node:crypto';

// The one maker of webhook signing secrets (Standard Webhooks form): an account's first
// secret (app/webhook-settings.ts), a rotation's, and the backfill of migration 0005.

const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

/** A new secret: `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}
