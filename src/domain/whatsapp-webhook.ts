// The WhatsApp Cloud API webhook payload (`object: whatsapp_business_account`),
// reduced to what herald acts on: status updates of messages it sent, and the
// inbound messages that open a 24-hour customer-service window. Pure parsing: a
// part that does not have the expected shape is skipped, never fatal, because
// Meta adds fields and kinds of change over time and a refused delivery is resent.
import { isJsonObject, ownField, type JsonObject } from './json-object.ts';

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

export interface WebhookInboundMessage {
  /** The business number the user wrote to (`metadata.phone_number_id`). */
  readonly phoneNumberId: string;
  /** The user's WhatsApp id: digits, country code first. */
  readonly from: string;
  readonly at: number | undefined;
}

export interface WhatsappWebhook {
  readonly statuses: readonly WebhookStatusUpdate[];
  readonly inbound: readonly WebhookInboundMessage[];
}

const objectsOf = (value: unknown): JsonObject[] => (Array.isArray(value) ? value.filter(isJsonObject) : []);
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

function timeOf(value: unknown): number | undefined {
  const raw = typeof value === 'number' ? String(value) : value;
  return typeof raw === 'string' && /^[0-9]{1,12}$/.test(raw) ? Number(raw) * 1000 : undefined;
}

function isWebhookStatus(value: unknown): value is WebhookStatus {
  return (WEBHOOK_STATUSES as readonly unknown[]).includes(value);
}

/** `131026 Message undeliverable; …` from a failed status's `errors`. */
function describeErrors(errors: unknown): string {
  return objectsOf(errors)
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

const WA_ID = /^[0-9]{6,20}$/;

/** Everything herald acts on in one webhook delivery, in the order Meta sent it. */
export function parseWhatsappWebhook(body: unknown): WhatsappWebhook {
  const statuses: WebhookStatusUpdate[] = [];
  const inbound: WebhookInboundMessage[] = [];
  if (!isJsonObject(body)) return { statuses, inbound };
  for (const entry of objectsOf(ownField(body, 'entry'))) {
    for (const change of objectsOf(ownField(entry, 'changes'))) {
      const value = ownField(change, 'value');
      if (!isJsonObject(value)) continue;
      for (const status of objectsOf(ownField(value, 'statuses'))) {
        const parsed = parseStatus(status);
        if (parsed) statuses.push(parsed);
      }
      const metadata = ownField(value, 'metadata');
      const phoneNumberId = isJsonObject(metadata) ? text(ownField(metadata, 'phone_number_id')) : undefined;
      if (phoneNumberId === undefined) continue;
      for (const message of objectsOf(ownField(value, 'messages'))) {
        const from = text(ownField(message, 'from'));
        if (from === undefined || !WA_ID.test(from)) continue;
        inbound.push({ phoneNumberId, from, at: timeOf(ownField(message, 'timestamp')) });
      }
    }
  }
  return { statuses, inbound };
}
