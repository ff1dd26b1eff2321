import type { Executor } from './database.ts';

// The parts of concatenated MO SMS waiting for the rest (app/receive-sms-part.ts).
// A message is keyed by (sender, recipient, reference, total); its parts are rows 1…total.
// Row 0 is the message's head: written (or touched) first by every part's unit of work,
// so on PostgreSQL two parts of one message arriving together wait on that row in turn
// and the second sees the first's part, and whichever comes last joins them. Its
// received_at is when the message's first part came, which the time-out counts from.
// Once joined, the head says so (its text `"joined"`) and the rows stay until the
// time-out, so a part the SMSC sends again after that (its acknowledgement lost) is
// recognised as the same part, not taken for a new message; the time-out removes them.
// A part's text is kept as a JSON string literal: a surrogate pair split across two
// UCS-2 parts leaves each half alone, which UTF-8 (both engines' text) cannot hold.

export interface SmsMessageKey {
  readonly sender: string;
  readonly recipient: string;
  readonly reference: number;
  readonly total: number;
}

export interface StoredSmsPart {
  readonly part: number;
  readonly text: string;
  readonly receivedAt: number;
}

const HEAD = 0;
const OPEN = JSON.stringify('');
const JOINED = JSON.stringify('joined');

const ofKey = (key: SmsMessageKey) => ({ sender: key.sender, recipient: key.recipient, reference: key.reference, total: key.total });

/**
 * Writes the message's head if it is not there, or touches it (its first arrival kept),
 * which holds its row until the transaction ends. Call first in the unit of work.
 */
export async function holdSmsMessage(tx: Executor, key: SmsMessageKey, id: string, now: number): Promise<void> {
  await tx.insertInto('inbound_sms_parts').values({ id, ...ofKey(key), part: HEAD, text: OPEN, received_at: now })
    .onConflict((oc) => oc.columns(['sender', 'recipient', 'reference', 'total', 'part']).doUpdateSet((eb) => ({ received_at: eb.ref('inbound_sms_parts.received_at') })))
    .execute();
}

/** Holds the message's head row until the transaction ends; false when it is gone (joined or delivered by another unit meanwhile). */
export async function lockSmsMessage(tx: Executor, key: SmsMessageKey): Promise<boolean> {
  const result = await tx.updateTable('inbound_sms_parts').set((eb) => ({ received_at: eb.ref('received_at') }))
    .where('sender', '=', key.sender).where('recipient', '=', key.recipient).where('reference', '=', key.reference).where('total', '=', key.total)
    .where('part', '=', HEAD)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Stores a part; a part stored already (the SMSC sent it again) is left as it is. */
export async function insertSmsPart(tx: Executor, key: SmsMessageKey, part: { readonly id: string; readonly part: number; readonly text: string; readonly now: number }): Promise<void> {
  await tx.insertInto('inbound_sms_parts').values({ id: part.id, ...ofKey(key), part: part.part, text: JSON.stringify(part.text), received_at: part.now })
    .onConflict((oc) => oc.columns(['sender', 'recipient', 'reference', 'total', 'part']).doNothing())
    .execute();
}

/** The message's head (its first arrival, whether it was joined) and parts in order; undefined when it has no head (gone). */
export async function smsMessageParts(tx: Executor, key: SmsMessageKey): Promise<{ firstAt: number; joined: boolean; parts: StoredSmsPart[] } | undefined> {
  const rows = await tx.selectFrom('inbound_sms_parts').select(['part', 'text', 'received_at'])
    .where('sender', '=', key.sender).where('recipient', '=', key.recipient).where('reference', '=', key.reference).where('total', '=', key.total)
    .orderBy('part').execute();
  const [head, ...parts] = rows;
  if (head === undefined || Number(head.part) !== HEAD) return undefined;
  return {
    firstAt: Number(head.received_at),
    joined: head.text === JOINED,
    parts: parts.map((row) => ({ part: Number(row.part), text: JSON.parse(row.text) as string, receivedAt: Number(row.received_at) })),
  };
}

/** Marks the message joined (recorded); its rows stay until the time-out removes them. */
export async function markSmsMessageJoined(tx: Executor, key: SmsMessageKey): Promise<void> {
  await tx.updateTable('inbound_sms_parts').set({ text: JOINED })
    .where('sender', '=', key.sender).where('recipient', '=', key.recipient).where('reference', '=', key.reference).where('total', '=', key.total)
    .where('part', '=', HEAD)
    .execute();
}

/** Removes the message's head and parts. */
export async function deleteSmsMessage(tx: Executor, key: SmsMessageKey): Promise<void> {
  await tx.deleteFrom('inbound_sms_parts')
    .where('sender', '=', key.sender).where('recipient', '=', key.recipient).where('reference', '=', key.reference).where('total', '=', key.total)
    .execute();
}

/** Messages whose first part came at or before `cutoff`, oldest first, at most `limit`. */
export async function overdueSmsMessages(db: Executor, cutoff: number, limit: number): Promise<SmsMessageKey[]> {
  const rows = await db.selectFrom('inbound_sms_parts').select(['sender', 'recipient', 'reference', 'total'])
    .where('received_at', '<=', cutoff).where('part', '=', HEAD)
    .orderBy('received_at').orderBy('id').limit(limit).execute();
  return rows.map((row) => ({ sender: row.sender, recipient: row.recipient, reference: Number(row.reference), total: Number(row.total) }));
}
