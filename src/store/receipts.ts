import type { Executor } from './database.ts';
import type { Receipt } from './engine.ts';
import { findMessageByProviderRef, recordEvent } from './messages.ts';

/**
 * Records a peer's report the ordinary way, in the unit of work of `tx`: the message
 * looked up by the peer's reference, then its event (recordEvent: the status moved from
 * an allowed predecessor, the webhook delivery decided on the settings read now). False
 * when no message has the reference. PostgreSQL records the reports that arrive
 * together in one statement instead (store/postgres/peer-receipt.ts).
 */
export async function recordReceipt(tx: Executor, receipt: Receipt): Promise<boolean> {
  const message = await findMessageByProviderRef(tx, receipt.channel, receipt.providerRef);
  if (message === undefined) return false;
  await recordEvent(tx, { messageId: message.id, ...receipt.event });
  return true;
}
