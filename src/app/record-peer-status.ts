import type { Channel } from '../domain/account.ts';
import type { MessageStatus } from '../domain/message-status.ts';
import { findReceiptMessage, recordReceipt } from '../store/peer-receipt.ts';
import type { AppDeps } from './deps.ts';

/** What a peer reported later about a message it took: an SMPP receipt, a WhatsApp status. */
export interface PeerStatusReport {
  readonly channel: Channel;
  readonly providerRef: string;
  readonly status: Extract<MessageStatus, 'sent' | 'delivered' | 'failed' | 'bounced'> | 'read';
  readonly peer: string;
  readonly response: string;
  /** When the peer says it happened, if it says. */
  readonly at?: number;
}

export type PeerStatusResult = 'recorded' | 'unknown-message';

/**
 * Applies a peer's report to the message it names. `read` (WhatsApp) is recorded as
 * an event on a delivered message without a status of its own. A report for a
 * message this installation does not know is answered, not failed: peers resend
 * what is not acknowledged, and an unknown id will not become known.
 */
export async function recordPeerStatus(deps: Pick<AppDeps, 'db' | 'commit' | 'clock' | 'newId' | 'wakeWebhooks'>, report: PeerStatusReport): Promise<PeerStatusResult> {
  // On PostgreSQL the look-up reads the webhook subject too, and the unit of work is one statement (store/peer-receipt.ts).
  const message = await findReceiptMessage(deps.db, report.channel, report.providerRef);
  if (!message) return 'unknown-message';
  const at = report.at ?? deps.clock();
  const data = { peer: report.peer, response: report.response };
  // Receipts come in bursts (an SMSC flushing its queue): they share commits like sends do.
  await deps.commit.run(async (tx) => {
    if (report.status === 'read') {
      await recordReceipt(tx, message, { status: 'delivered', type: 'read', eventId: deps.newId(), at, data });
      return;
    }
    await recordReceipt(tx, message, { status: report.status, eventId: deps.newId(), at, data });
  });
  deps.wakeWebhooks?.();
  return 'recorded';
}
