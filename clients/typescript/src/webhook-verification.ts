// Verifying a post from herald (Standard Webhooks, docs/webhooks.md): HMAC-SHA256 with
// the secret's bytes over `<webhook-id>.<webhook-timestamp>.<raw body>`, compared in
// constant time with each `v1,<base64>` of webhook-signature (two during a secret's
// rotation), and webhook-timestamp within a tolerance of the receiver's clock.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './operation-types.ts';

/** Five minutes, as the Standard Webhooks libraries allow. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** Headers as node:http gives them (`req.headers`), as a `Headers`, or a plain record. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyOptions {
  readonly toleranceSeconds?: number;
  /** The receiver's clock; the current time unless given. */
  readonly now?: Date;
}

function header(headers: WebhookHeaders, name: string): string {
  let value: string | readonly string[] | null | undefined;
  if (headers instanceof Headers) value = headers.get(name);
  else value = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  const text = typeof value === 'string' ? value : value?.[0];
  if (text === undefined || text === '') throw new WebhookVerificationError(`missing ${name} header`);
  return text;
}

/** The HMAC key: the base64 after `whsec_` (a bare base64 secret is taken too). */
function secretKey(secret: string): Buffer {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  if (key.length === 0) throw new WebhookVerificationError('the secret is empty or not base64');
  return key;
}

/**
 * Checks a post's signature and timestamp and answers its event; throws
 * WebhookVerificationError when the post is not herald's (or is too old or too new).
 * `body` must be the raw bytes received: a parsed and re-serialised body does not verify.
 */
export function verifyWebhook(body: string | Uint8Array, headers: WebhookHeaders, secret: string, options: VerifyOptions = {}): WebhookEvent {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not a number of seconds');
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (now - Number(timestamp) > tolerance) throw new WebhookVerificationError('webhook-timestamp is too old');
  if (Number(timestamp) - now > tolerance) throw new WebhookVerificationError('webhook-timestamp is in the future');

  const raw = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const expected = createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.`).update(raw).digest();
  const matches = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || signature === undefined) return false;
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('no signature matches');
  try {
    return JSON.parse(raw.toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
}
