import type { Executor } from './database.ts';
import type { Receipt } from './engine.ts';
import { findMessageByProviderRef, recordEvent, type StoredMessage } from './messages.ts';

// A peer's report recorded the ordinary way: its message looked up by the peer's
// reference, then its event (recordEvent: the status moved from an allowed predecessor,
// the webhook delivery decided on the settings read now). PostgreSQL records the reports
// that arrive together in one statement instead (store/postgres/peer-receipt.ts).

/** The message the peer knows by the report's reference (the first, should two share it). */
export function findReceiptMessage(db: Executor, receipt: Receipt): Promise<StoredMessage | undefined> {
  return findMessageByProviderRef(db, receipt.channel, receipt.providerRef);
}

/** The report's event on `message`, in the unit of work of `tx`. */
export async function recordReceiptEvent(tx: Executor, message: StoredMessage, receipt: Receipt): Promise<void> {
  await recordEvent(tx, { messageId: message.id, ...receipt.event });
}

/** Looks the message up and records the report's event, both in the unit of work of `tx`; false when no message has the reference. */
export async function recordReceipt(tx: Executor, receipt: Receipt): Promise<boolean> {
  const message = await findReceiptMessage(tx, receipt);
  if (message === undefined) return false;
  await recordReceiptEvent(tx, message, receipt);
  return true;
}
