import { filterAccepts, type InboundEventType } from '../domain/event-catalogue.ts';
import type { Executor } from '../store/database.ts';
import { insertDelivery, queueToEndpoints } from '../store/webhook-deliveries.ts';
import { acceptingEndpoints } from '../store/webhook-endpoints.ts';
import { findWebhookSettings } from '../store/webhook-settings.ts';

/**
 * Queues a webhook of an event that belongs to no message of herald's (what a person
 * sent, a consent change), in the caller's transaction, as the message events are:
 * to each enabled endpoint whose filter lets the type through (the first one: when the
 * account has a URL). The body is fixed now; `id` is its `webhook-id` on every retry.
 */
export async function queueAccountEvent(
  db: Executor,
  event: { readonly id: string; readonly accountId: string; readonly type: InboundEventType; readonly at: number; readonly data: Readonly<Record<string, unknown>> },
): Promise<boolean> {
  const settings = await findWebhookSettings(db, event.accountId);
  const first = settings !== undefined && settings.url !== null && settings.disabled === null && filterAccepts(settings.events, event.type);
  const others = await acceptingEndpoints(db, event.accountId, event.type);
  if (!first && others.length === 0) return false;
  const payload = { type: event.type, timestamp: new Date(event.at).toISOString(), data: event.data };
  const delivery = { accountId: event.accountId, messageId: null, type: event.type, payload: JSON.stringify(payload), at: event.at };
  if (first) await insertDelivery(db, { id: event.id, ...delivery });
  await queueToEndpoints(db, event.id, others, delivery);
  return true;
}
