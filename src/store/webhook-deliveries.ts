import type { Channel } from '../domain/account.ts';
import { eventPayload, filterAccepts, publicEventType, type EventFamily, type EventType } from '../domain/event-catalogue.ts';
import type { Executor } from './database.ts';

/** A message event just recorded, as recordEvent hands it over. */
export interface RecordedEvent {
  readonly id: string;
  readonly messageId: string;
  readonly type: string;
  readonly at: number;
  readonly data: Readonly<Record<string, unknown>>;
}

/**
 * The webhook outbox's producer: called in the transaction that records a message
 * event, so an event and its delivery row commit together or not at all. Writes a
 * `pending` row, due at once, when the event has a public type, the account has a
 * webhook URL and its filter lets the type through. The body is fixed now, so every
 * retry posts the same bytes under the same `webhook-id` (the event's id).
 */
export async function enqueueWebhookDelivery(db: Executor, event: RecordedEvent): Promise<boolean> {
  const row = await db
    .selectFrom('messages as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .innerJoin('sends as s', 's.id', 'm.send_id')
    .select([
      'm.account_id', 'm.channel', 'm.recipient', 'a.webhook_url', 'a.webhook_events',
      's.family', 's.metadata', 's.certified', 's.track_opens', 's.track_clicks',
    ])
    .where('m.id', '=', event.messageId)
    .executeTakeFirst();
  if (!row || row.webhook_url === null) return false;
  const channel = row.channel as Channel;
  const type = publicEventType(channel, event.type);
  if (type === undefined) return false;
  const filter = row.webhook_events === null ? null : (JSON.parse(row.webhook_events) as EventType[]);
  if (!filterAccepts(filter, type)) return false;

  const certified = row.certified === 1;
  const payload = eventPayload(type, event.at, {
    msgid: event.messageId,
    accountId: row.account_id,
    channel,
    recipient: row.recipient,
    family: row.family as EventFamily,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, unknown>),
    certified,
    ...(channel === 'email' && !certified ? { tracking: { opens: row.track_opens === 1, clicks: row.track_clicks === 1 } } : {}),
  }, event.data);
  await db
    .insertInto('webhook_deliveries')
    .values({
      id: event.id, account_id: row.account_id, message_id: event.messageId, type, payload: JSON.stringify(payload),
      status: 'pending', attempts: 0, next_attempt_at: event.at, lease_owner: null, lease_expires_at: null,
      last_status_code: null, last_error: null, created_at: event.at, updated_at: event.at,
    })
    .execute();
  return true;
}
