// POST /v1/whatsapp/sendMessage: a free-text (session) message, allowed only while
// the destination's 24-hour customer-service window is open.
import { isJsonObject, ownField } from './json-object.ts';
import { ok, reject, type Result } from './result.ts';
import { parseWhatsappDestination } from './whatsapp-request.ts';

/** The Cloud API's limit for a text message body, in characters. */
export const SESSION_TEXT_MAX = 4096;

/** Meta's customer-service window: 24 hours after the user's last message. */
export const SESSION_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface WhatsappSessionRequest {
  /** Digits only, country code first, without '+'. */
  readonly destination: string;
  /** Sent exactly as given. */
  readonly message: string;
}

/** Checks in order: body object (err 1) → destination → message present and within the limit. */
export function parseWhatsappSessionRequest(body: unknown): Result<WhatsappSessionRequest> {
  if (!isJsonObject(body)) return reject('invalidRequest1');
  const destination = parseWhatsappDestination(ownField(body, 'destination'));
  if (destination === null) return reject('invalidDestination');
  const message = ownField(body, 'message');
  if (typeof message !== 'string' || message.trim() === '') return reject('smsMessageMissing');
  if ([...message].length > SESSION_TEXT_MAX) return reject('invalidField', { detail: `message: must be at most ${SESSION_TEXT_MAX} characters` });
  return ok({ destination, message });
}

/** Whether a user who last wrote at `lastInboundAt` may receive a session message at `now`. */
export function sessionOpen(lastInboundAt: number | undefined, now: number): boolean {
  return lastInboundAt !== undefined && now - lastInboundAt < SESSION_WINDOW_MS;
}
