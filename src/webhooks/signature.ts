import { Webhook } from 'standardwebhooks';
import { BoundedCache } from '../cache/bounded-cache.ts';

// Standard Webhooks signing (https://www.standardwebhooks.com): HMAC-SHA256 over
// `<webhook-id>.<webhook-timestamp>.<body>` with the account's secret, through the
// `standardwebhooks` package so herald signs exactly as its consumers verify.

/** The three headers of a signed post. */
export interface WebhookHeaders {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
}

// Parsing a secret (base64) costs more than a signature of a small body; keep the few in use.
const SIGNER_CACHE_SIZE = 1024;

/** Signs posts with one or more secrets; remembers the parsed secrets it has seen. */
export class WebhookSigner {
  readonly #signers = new BoundedCache<string, Webhook>({ maxEntries: SIGNER_CACHE_SIZE });

  /**
   * The headers for `body` sent as `id` at `at`. With several secrets (during a
   * rotation: the current one first, then the previous) the signature header carries
   * one `v1,<base64>` per secret, space-separated, and a receiver holding either
   * secret verifies it.
   */
  headers(id: string, at: Date, body: string, secrets: readonly string[]): WebhookHeaders {
    if (secrets.length === 0) throw new Error('signing needs at least one secret');
    return {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': secrets.map((secret) => this.#signer(secret).sign(id, at, body)).join(' '),
    };
  }

  #signer(secret: string): Webhook {
    return this.#signers.obtain(secret, () => new Webhook(secret));
  }
}
