import { parseWhatsappWebhook } from '../domain/whatsapp-webhook.ts';
import { findAccountIdsByPhoneNumberId } from '../store/accounts.ts';
import { touchWhatsappSession } from '../store/whatsapp-sessions.ts';
import type { AppDeps } from './deps.ts';
import { recordPeerStatus } from './record-peer-status.ts';

export const WEBHOOK_PEER = 'whatsapp-webhook';

export interface WebhookHandled {
  /** Status updates applied to a message of this installation. */
  readonly statuses: number;
  /** Status updates for a wamid this installation does not know (another system's, or long gone). */
  readonly unknownStatuses: number;
  /** Customer-service windows opened or refreshed. */
  readonly sessions: number;
}

/**
 * Applies one signed Cloud API webhook delivery: statuses move the messages they
 * name, inbound user messages open the 24-hour window for every account that
 * sends from the number written to. Whatever is not understood is skipped: Meta
 * gets its 200 either way, since resending would not make it understood.
 */
export async function handleWhatsappWebhook(deps: Pick<AppDeps, 'db' | 'commit' | 'clock' | 'newId' | 'wakeWebhooks' | 'metrics'>, body: unknown): Promise<WebhookHandled> {
  const webhook = parseWhatsappWebhook(body);
  let statuses = 0;
  let unknownStatuses = 0;
  for (const update of webhook.statuses) {
    const result = await recordPeerStatus(deps, {
      channel: 'whatsapp', providerRef: update.wamid, status: update.status, peer: WEBHOOK_PEER, response: update.description,
      ...(update.at === undefined ? {} : { at: update.at }),
    });
    if (result === 'recorded') statuses += 1;
    else unknownStatuses += 1;
  }

  let sessions = 0;
  const now = deps.clock();
  for (const message of webhook.inbound) {
    // Meta's time of the message, but never in the future of ours: a skewed clock
    // must not stretch the window.
    const at = Math.min(message.at ?? now, now);
    for (const accountId of await findAccountIdsByPhoneNumberId(deps.db, message.phoneNumberId)) {
      await touchWhatsappSession(deps.db, { accountId, destination: message.from, at });
      sessions += 1;
    }
  }
  return { statuses, unknownStatuses, sessions };
}
