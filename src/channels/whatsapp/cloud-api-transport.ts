import type { Outbound, WhatsappPayload } from '../../domain/outbound.ts';
import type { Outcome, Transport } from '../channel.ts';
import { cloudApiMessageBody } from './cloud-api-body.ts';
import { cloudApiOutcome, type CloudApiReply } from './cloud-api-outcome.ts';

/** One account's Cloud API sender: its phone number id and the access token that may use it. */
export interface WhatsappCredentials {
  readonly phoneNumberId: string;
  readonly accessToken: string;
}

export interface CloudApiTransportOptions {
  /** The Graph API root with its version, e.g. `https://graph.facebook.com/v23.0`. */
  readonly baseUrl: string;
  /** The account's credentials; undefined when WhatsApp delivery is not configured for it. */
  readonly credentials: (accountId: string) => Promise<WhatsappCredentials | undefined>;
  /** Whole request, answer body included (default 30 s). */
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
}

export const CLOUD_API_TIMEOUT_MS = 30_000;
export const NOT_CONFIGURED = 'WhatsApp is not configured for this account';

// Meta's answers are a few hundred bytes; a larger one is cut, not buffered whole.
const ANSWER_MAX_BYTES = 64 * 1024;

/**
 * Sends through the WhatsApp Cloud API: `POST {baseUrl}/{phoneNumberId}/messages`
 * with the account's bearer token. The Cloud API has no idempotency key, so a
 * time-out after Meta took the message and the retry that follows may deliver it
 * twice; dropping it instead would lose messages Meta never saw.
 */
export function cloudApiTransport(options: CloudApiTransportOptions): Transport<WhatsappPayload> {
  const base = options.baseUrl.replace(/\/+$/, '');
  const peer = new URL(base).host;
  const timeoutMs = options.timeoutMs ?? CLOUD_API_TIMEOUT_MS;
  const doFetch = options.fetch ?? fetch;

  async function post(credentials: WhatsappCredentials, body: string, signal: AbortSignal): Promise<CloudApiReply> {
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      const response = await doFetch(`${base}/${encodeURIComponent(credentials.phoneNumberId)}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${credentials.accessToken}`, 'content-type': 'application/json', accept: 'application/json' },
        body,
        // A redirect would carry the token to another address; the table refuses it instead.
        redirect: 'manual',
        signal: AbortSignal.any([signal, timeout]),
      });
      return { kind: 'http', status: response.status, body: await readCapped(response) };
    } catch (error) {
      if (timeout.aborted) return { kind: 'no-answer', reason: `no answer within ${timeoutMs} ms` };
      if (signal.aborted) return { kind: 'no-answer', reason: 'delivery stopped before an answer' };
      return { kind: 'no-answer', reason: `network error: ${describeError(error)}` };
    }
  }

  return {
    name: 'cloud-api',
    async send(message: Outbound<WhatsappPayload>, signal: AbortSignal): Promise<Outcome> {
      const credentials = await options.credentials(message.accountId);
      if (!credentials) return { kind: 'failed', peer, response: NOT_CONFIGURED, leftTheHouse: false };
      const reply = await post(credentials, JSON.stringify(cloudApiMessageBody(message)), signal);
      const outcome = cloudApiOutcome(reply, peer);
      // Meta does not echo tokens, but an error text is no place to find out it started to.
      return { ...outcome, response: outcome.response.replaceAll(credentials.accessToken, '[redacted]') };
    },
  };
}

/** The answer's body, cut at ANSWER_MAX_BYTES rather than buffered whole. */
export async function readCapped(response: Response): Promise<string> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    chunks.push(chunk);
    size += chunk.byteLength;
    // Leaving the loop cancels the rest of the stream.
    if (size >= ANSWER_MAX_BYTES) break;
  }
  return Buffer.concat(chunks).subarray(0, ANSWER_MAX_BYTES).toString('utf8');
}

export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // undici puts the socket-level reason (ECONNREFUSED …) in `cause`.
  const cause = error.cause instanceof Error ? error.cause : undefined;
  const code = cause && 'code' in cause && typeof cause.code === 'string' ? cause.code : undefined;
  return code ?? cause?.message ?? error.message;
}
