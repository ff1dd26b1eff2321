import type { Channel } from '../../domain/account.ts';
import type { RecordedPublicEvent } from '../../domain/event-catalogue.ts';
import { predecessorsOf } from '../../domain/message-status.ts';
import type { Executor } from '../database.ts';
import type { Receipt, ReceiptEvent, ReceiptMessage } from '../engine.ts';
import { publicEventOf } from '../event-tally.ts';
import { queryRows, statement } from '../prepared-statement.ts';
import { recordReceipt } from '../receipts.ts';
import { EVENT_SUBJECT_COLUMNS, EVENT_SUBJECT_JOINS, webhookDeliveryOf, type EventSubject } from '../webhook-deliveries.ts';
import type { BatchedWrite, TogetherOutcome } from '../write-together.ts';

// PostgreSQL: peers' later reports on messages (SMPP delivery receipts, WhatsApp
// statuses) recorded many at a time (the group committer's writeTogether gathers the
// reports that arrive together: store/write-together.ts). Per batch of reports, 2 statements where each report took 5
// round trips: the messages found by the peers' references with their webhook subjects
// (one SELECT), then ONE statement of data-modifying CTEs over arrays, its own
// transaction: each status moved (from an allowed predecessor), each event inserted,
// and each webhook delivery (its body built in process from the subject) inserted, on
// condition that the accounts' webhook settings are still those the bodies were built
// from. If one changed in between (rare: a PUT /v1/webhooks, a 410), nothing is written
// and the batch's reports are recorded alone (store/receipts.ts recordReceipt, which
// decides each delivery anew). Each message at most once per batch: a second report on
// the same message (sent, then delivered) waits for the next batch, so reports on one
// message apply in their order. SQLite records each report alone: its statements run
// in process, there is no round trip to save.

/** Most reports looked up and recorded in one batch (one SELECT, then one statement that is its own transaction). */
const MAX_RECEIPTS_PER_BATCH = 256;
/** Batches under way at once: while one waits on its statement, the reports that came meanwhile are looked up. */
const RECEIPT_LANES = 2;

/** Peers' reports as the group committer writes them together (store/write-together.ts). */
export const receiptsTogether: BatchedWrite<Receipt, boolean> = {
  maxBatch: MAX_RECEIPTS_PER_BATCH,
  lanes: RECEIPT_LANES,
  alone: recordReceipt,
  async together(db, receipts) {
    const found = new Map<Receipt, ReceiptMessage>();
    for (const channel of new Set(receipts.map((r) => r.channel))) {
      const ofChannel = receipts.filter((r) => r.channel === channel);
      const messages = await findReceiptMessages(db, channel, ofChannel.map((r) => r.providerRef));
      for (const receipt of ofChannel) {
        const message = messages.get(receipt.providerRef);
        if (message !== undefined) found.set(receipt, message);
      }
    }
    const taken = new Set<string>();
    const now: { message: ReceiptMessage; event: ReceiptEvent }[] = [];
    const outcomes = receipts.map((receipt): TogetherOutcome<boolean> => {
      const message = found.get(receipt);
      if (message === undefined) return { kind: 'done', value: false };
      // An account with several endpoints fans each event out (webhook-deliveries.ts): recorded alone.
      if (Number(message.subject.other_endpoints) === 1) return { kind: 'alone' };
      if (taken.has(message.id)) return { kind: 'later' };
      taken.add(message.id);
      now.push({ message, event: receipt.event });
      return { kind: 'done', value: true };
    });
    const events = await recordReceipts(db, now);
    // A webhook setting changed since the look-up: nothing was written, the found reports go alone.
    if (events === undefined) return { outcomes: outcomes.map((o) => (o.kind === 'done' && o.value ? { kind: 'alone' } : o)), events: [] };
    return { outcomes, events };
  },
};

/** The messages the peer knows by these references (SMPP message_id, WhatsApp wamid), by reference. */
export async function findReceiptMessages(db: Executor, channel: Channel, providerRefs: readonly string[]): Promise<Map<string, ReceiptMessage>> {
  const rows = await queryRows<EventSubject & { id: string; provider_ref: string }>(db, FIND_WITH_SUBJECTS, [channel, [...new Set(providerRefs)]]);
  const found = new Map<string, ReceiptMessage>();
  for (const { id, provider_ref: providerRef, ...subject } of rows) {
    // As findMessageByProviderRef: the first message of a reference, should two share it.
    if (!found.has(providerRef)) found.set(providerRef, { id, subject });
  }
  return found;
}

// One index probe per reference (LATERAL … LIMIT 1: a message the reference names), where
// `provider_ref = any($2)` let the plan cached for the connection (made while the table
// was small, before its first ANALYZE) read every message of the channel: 30 ms a batch
// of 16 at 12,000 messages, growing with the table (bench webhooks --profile).
export const FIND_WITH_SUBJECTS = statement(`
  select m.id, m.provider_ref, ${EVENT_SUBJECT_COLUMNS}
  from unnest($2::text[]) as ref(provider_ref)
  cross join lateral (select * from messages x where x.channel = $1 and x.provider_ref = ref.provider_ref limit 1) m
  ${EVENT_SUBJECT_JOINS}`);

/**
 * Records each report's event (status move, event row, webhook delivery) as recordEvent
 * does, in ONE statement, atomic by itself: run it outside a transaction and it is its
 * own (one round trip, where BEGIN and COMMIT would add two). Each message at most once
 * per call (one UPDATE moves a row once). False when an account's webhook settings are
 * no longer those read with its message: then nothing at all is written (undefined), and the caller
 * records the reports the ordinary way (recordEvent, which reads the settings anew).
 * Otherwise the public events recorded, for the outcome counters (store/event-tally.ts).
 */
export async function recordReceipts(
  db: Executor,
  receipts: readonly { readonly message: ReceiptMessage; readonly event: ReceiptEvent }[],
): Promise<readonly RecordedPublicEvent[] | undefined> {
  if (receipts.length === 0) return [];
  const rows = receipts.map(({ message, event }) => {
    const type = event.type ?? event.status;
    const recorded = { id: event.eventId, messageId: message.id, type, at: event.at, data: event.data };
    return { message, event, recorded, delivery: webhookDeliveryOf(message.subject, recorded) };
  });
  const [result] = await queryRows<{ settings_kept: boolean }>(db, RECORD_RECEIPTS, [
    rows.map((r) => r.message.id), rows.map((r) => r.event.status), rows.map((r) => predecessorsOf(r.event.status).join(',')),
    rows.map((r) => r.event.at), rows.map((r) => r.event.eventId), rows.map((r) => r.recorded.type), rows.map((r) => JSON.stringify(r.event.data)),
    rows.map((r) => r.message.subject.account_id), rows.map((r) => r.message.subject.webhook_url), rows.map((r) => r.message.subject.webhook_events),
    rows.map((r) => r.message.subject.webhook_disabled_at), rows.map((r) => r.delivery?.type ?? null), rows.map((r) => r.delivery?.payload ?? null),
  ]);
  if (result?.settings_kept !== true) return undefined;
  return rows.flatMap(({ message, recorded }) => publicEventOf(message.subject, recorded) ?? []);
}

// Per report: $1 message, $2 status, $3 its predecessors (comma-separated), $4 time,
// $5 event id (and the delivery's), $6 event type, $7 event data, $8 account, $9–$11
// the account's webhook URL, filter and disabled time as the body was built from, $12
// the delivery's public type and $13 its body (null: no delivery). Every write is on
// condition that every account's settings are as read (`kept`): all or nothing.
const RECORD_RECEIPTS = statement(`
  with r as (select * from unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[],
                                  $8::text[], $9::text[], $10::text[], $11::bigint[], $12::text[], $13::text[])
               as r(message_id, status, predecessors, at, event_id, type, data, account_id, url, events, disabled_at, delivery_type, payload)),
       kept as (select count(*) = (select count(*) from r) as ok
                from r join accounts a on a.id = r.account_id
                 and a.webhook_url is not distinct from r.url and a.webhook_events is not distinct from r.events
                 and a.webhook_disabled_at is not distinct from r.disabled_at),
       moved as (update messages m set status = r.status, updated_at = r.at
                 from r
                 where m.id = r.message_id and m.status = any(string_to_array(r.predecessors, ',')) and (select ok from kept)),
       event as (insert into message_events (id, message_id, type, at, data)
                 select event_id, message_id, type, at, data from r where (select ok from kept)),
       delivery as (insert into webhook_deliveries (id, account_id, message_id, type, payload, status, attempts, next_attempt_at,
                                                    lease_owner, lease_expires_at, last_status_code, last_error, created_at, updated_at)
                    select r.event_id, r.account_id, r.message_id, r.delivery_type, r.payload, 'pending', 0, 0, null, null, null, null, r.at, r.at
                    from r where r.payload is not null and (select ok from kept))
  select ok as settings_kept from kept`);
