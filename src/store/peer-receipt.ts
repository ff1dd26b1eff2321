import type { Channel } from '../domain/account.ts';
import type { MessageStatus } from '../domain/message-status.ts';
import type { Executor } from './database.ts';
import { movableTo } from './leased-outcome.ts';
import { findMessageByProviderRef, recordEvent, type EventEffects } from './messages.ts';
import { onPostgres, queryRows, statement, type Statement } from './prepared-statement.ts';
import { enqueueWebhookDelivery, EVENT_SUBJECT_COLUMNS, EVENT_SUBJECT_JOINS, webhookDeliveryOf, type EventSubject } from './webhook-deliveries.ts';

// A peer's later report on a message (an SMPP delivery receipt, a WhatsApp status):
// the message found by the peer's reference, then its event recorded in a unit of work.
//
// Round trips on PostgreSQL, per receipt: 2 (were 5). The look-up reads the webhook
// subject with the message (one statement, outside the unit of work, so the batch it
// joins is not held by it), the delivery's body is built in process, and the unit of
// work is ONE statement of data-modifying CTEs: the status moved (from an allowed
// predecessor), the event inserted, and the webhook delivery inserted on condition that
// the account's webhook settings are still those the body was built from. If they
// changed in between (rare: a PUT /v1/webhooks, a 410), the delivery is decided again
// from the subject as it is now (one more statement), as recordEvent decides it.
// SQLite keeps findMessageByProviderRef and recordEvent: its statements run in process.

/** The message a report names; with its webhook subject when read with it (PostgreSQL). */
export interface ReceiptMessage {
  readonly id: string;
  readonly subject?: EventSubject;
}

/** The message a peer knows by `providerRef` (SMPP message_id, WhatsApp wamid). */
export async function findReceiptMessage(db: Executor, channel: Channel, providerRef: string): Promise<ReceiptMessage | undefined> {
  if (!onPostgres(db)) {
    const message = await findMessageByProviderRef(db, channel, providerRef);
    return message && { id: message.id };
  }
  const [row] = await queryRows<EventSubject & { id: string }>(db, FIND_WITH_SUBJECT, [channel, providerRef]);
  if (row === undefined) return undefined;
  const { id, ...subject } = row;
  return { id, subject };
}

const FIND_WITH_SUBJECT = statement(`
  select m.id, ${EVENT_SUBJECT_COLUMNS}
  from messages m
  ${EVENT_SUBJECT_JOINS}
  where m.channel = $1 and m.provider_ref = $2`);

export interface ReceiptEvent {
  /** The status moves to this only from one of its predecessors (as recordEvent moves it). */
  readonly status: MessageStatus;
  /** The event's type when it is not the status (`read`, recorded on a delivered message). */
  readonly type?: string;
  readonly eventId: string;
  readonly at: number;
  readonly data: Readonly<Record<string, unknown>>;
}

/** Records the report's event (and status move, and webhook delivery) as recordEvent does. Call in a unit of work. */
export async function recordReceipt(tx: Executor, message: ReceiptMessage, event: ReceiptEvent): Promise<EventEffects> {
  const { subject } = message;
  if (subject === undefined) return recordEvent(tx, { messageId: message.id, ...event });
  const type = event.type ?? event.status;
  const recorded = { id: event.eventId, messageId: message.id, type, at: event.at, data: event.data };
  const delivery = webhookDeliveryOf(subject, recorded);
  const [row] = await queryRows<{ moved: boolean; settings_kept: boolean }>(tx, receiptStatement(event.status), [
    message.id, event.status, event.at, event.eventId, type, JSON.stringify(event.data),
    subject.account_id, subject.webhook_url, subject.webhook_events, subject.webhook_disabled_at,
    delivery?.type ?? null, delivery?.payload ?? null,
  ]);
  if (row === undefined) throw new Error('the receipt statement returned no row');
  if (!row.settings_kept) return { moved: row.moved, webhookQueued: await enqueueWebhookDelivery(tx, recorded) };
  return { moved: row.moved, webhookQueued: delivery !== undefined };
}

// $1 message, $2 status, $3 time, $4 event id (and the delivery's), $5 event type,
// $6 event data, $7 account, $8–$10 the account's webhook URL, filter and disabled time
// as the body was built from, $11 the delivery's public type and $12 its body (null:
// no delivery). One text per status.
const statements = new Map<MessageStatus, Statement>();

function receiptStatement(status: MessageStatus): Statement {
  let known = statements.get(status);
  if (known === undefined) {
    statements.set(status, (known = statement(`
  with moved as (update messages set status = $2::text, updated_at = $3::bigint
                 where id = $1 and ${movableTo(status)}
                 returning id),
       event as (insert into message_events (id, message_id, type, at, data) values ($4, $1, $5, $3, $6)),
       kept as (select 1 from accounts
                where id = $7 and webhook_url is not distinct from $8::text and webhook_events is not distinct from $9::text
                  and webhook_disabled_at is not distinct from $10::bigint),
       delivery as (insert into webhook_deliveries (id, account_id, message_id, type, payload, status, attempts, next_attempt_at,
                                                    lease_owner, lease_expires_at, last_status_code, last_error, created_at, updated_at)
                    select $4, $7, $1, $11::text, $12::text, 'pending', 0, 0, null, null, null, null, $3, $3
                    from kept where $12::text is not null)
  select exists (select 1 from moved) as moved, exists (select 1 from kept) as settings_kept`)));
  }
  return known;
}
