// The WhatsApp Cloud API webhook payload (`object: whatsapp_business_account`),
// reduced to what herald acts on: status updates of messages it sent, and the
// users' messages (domain/whatsapp-inbound-message.ts), which are stored and open a
// 24-hour customer-service window. Pure parsing: a part that does not have the
// expected shape is skipped, never fatal, because Meta adds fields and kinds of
// change over time and a refused delivery is resent.
import { isJsonObject, ownField, type JsonObject } from './json-object.ts';
import { readInboundMessage, timeOf, WHATSAPP_INBOUND_LIMITS, type WebhookInboundMessage } from './whatsapp-inbound-message.ts';

export type { WebhookInboundMessage } from './whatsapp-inbound-message.ts';

export const WEBHOOK_STATUSES = ['sent', 'delivered', 'read', 'failed'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

export interface WebhookStatusUpdate {
  /** The wamid the send answer gave. */
  readonly wamid: string;
  readonly status: WebhookStatus;
  /** Epoch milliseconds, from Meta's `timestamp` (seconds); undefined when absent or malformed. */
  readonly at: number | undefined;
  /** Meta's words: the status, and for `failed` the error codes and titles. */
  readonly description: string;
}

export interface WhatsappWebhook {
  readonly statuses: readonly WebhookStatusUpdate[];
  readonly inbound: readonly WebhookInboundMessage[];
}

const objectsOf = (value: unknown, limit: number): JsonObject[] => (Array.isArray(value) ? value.slice(0, limit).filter(isJsonObject) : []);
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

function isWebhookStatus(value: unknown): value is WebhookStatus {
  return (WEBHOOK_STATUSES as readonly unknown[]).includes(value);
}

/** `131026 Message undeliverable; …` from a failed status's `errors`. */
function describeErrors(errors: unknown): string {
  return objectsOf(errors, WHATSAPP_INBOUND_LIMITS.errors)
    .map((error) => {
      const code = ownField(error, 'code');
      const title = text(ownField(error, 'title')) ?? text(ownField(error, 'message'));
      const errorData = ownField(error, 'error_data');
      const details = isJsonObject(errorData) ? text(ownField(errorData, 'details')) : undefined;
      return [typeof code === 'number' ? String(code) : undefined, title, details === undefined ? undefined : `(${details})`].filter(Boolean).join(' ');
    })
    .filter((line) => line !== '')
    .join('; ');
}

function parseStatus(status: JsonObject): WebhookStatusUpdate | undefined {
  const wamid = text(ownField(status, 'id'));
  const kind = ownField(status, 'status');
  if (wamid === undefined || !isWebhookStatus(kind)) return undefined;
  const errors = describeErrors(ownField(status, 'errors'));
  return { wamid, status: kind, at: timeOf(ownField(status, 'timestamp')), description: errors === '' ? kind : `${kind}: ${errors}` };
}

/**
 * Everything herald acts on in one webhook delivery, in the order Meta sent it; at
 * most WHATSAPP_INBOUND_LIMITS.itemsPerBody entries, changes, statuses and messages
 * walked, the rest ignored (so a body of a million empty entries costs no more).
 */
export function parseWhatsappWebhook(body: unknown): WhatsappWebhook {
  const statuses: WebhookStatusUpdate[] = [];
  const inbound: WebhookInboundMessage[] = [];
  if (!isJsonObject(body)) return { statuses, inbound };
  let budget = WHATSAPP_INBOUND_LIMITS.itemsPerBody;
  const take = (value: unknown): JsonObject[] => {
    if (!Array.isArray(value) || budget <= 0) return [];
    const taken = value.slice(0, budget);
    budget -= taken.length;
    return taken.filter(isJsonObject);
  };
  for (const entry of take(ownField(body, 'entry'))) {
    for (const change of take(ownField(entry, 'changes'))) {
      const value = ownField(change, 'value');
      if (!isJsonObject(value)) continue;
      for (const status of take(ownField(value, 'statuses'))) {
        const parsed = parseStatus(status);
        if (parsed) statuses.push(parsed);
      }
      const metadata = ownField(value, 'metadata');
      const phoneNumberId = isJsonObject(metadata) ? text(ownField(metadata, 'phone_number_id')) : undefined;
      if (phoneNumberId === undefined || phoneNumberId.length > WHATSAPP_INBOUND_LIMITS.idChars) continue;
      for (const message of take(ownField(value, 'messages'))) {
        const read = readInboundMessage(message, value, phoneNumberId);
        if (read) inbound.push(read);
      }
    }
  }
  return { statuses, inbound };
}
