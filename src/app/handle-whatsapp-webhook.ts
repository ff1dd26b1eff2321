import { arrivingWhatsapp, type WebhookInboundMessage } from '../domain/whatsapp-inbound-message.ts';
import { parseWhatsappWebhook } from '../domain/whatsapp-webhook.ts';
import { findAccountIdsByPhoneNumberId } from '../store/accounts.ts';
import type { Executor } from '../store/database.ts';
import { findMessageByProviderRef } from '../store/messages.ts';
import { touchWhatsappSession } from '../store/whatsapp-sessions.ts';
import type { AppDeps } from './deps.ts';
import { admitInbound, receiveInbound, type InboundDeps } from './receive-inbound.ts';
import { recordPeerStatus } from './record-peer-status.ts';

export const WEBHOOK_PEER = 'whatsapp-webhook';

export interface WebhookHandled {
  /** Status updates applied to a message of this installation. */
  readonly statuses: number;
  /** Status updates for a wamid this installation does not know (another system's, or long gone). */
  readonly unknownStatuses: number;
  /** Customer-service windows opened or refreshed. */
  readonly sessions: number;
  /** Users' messages stored (a resend of one already stored is not counted). */
  readonly received: number;
  /** Users' messages past the per-sender bound, not stored: the route asks Meta to send the body again later. */
  readonly throttled: number;
}

/**
 * Applies one signed Cloud API webhook delivery: statuses move the messages they
 * name; each user message opens the 24-hour window for every account that sends
 * from the number written to, and is stored and posted as `whatsapp.received`
 * (app/receive-inbound.ts routes it), its media left `pending` for the media queue
 * (queue/inbound-media/). Whatever is not understood is skipped: Meta gets its 200
 * either way, since resending would not make it understood. A message whose sender is
 * past the per-sender bound is not stored (`throttled`): Meta resends the body later, and
 * what was stored of it then is recognised by its wamid.
 */
export async function handleWhatsappWebhook(deps: InboundDeps & Pick<AppDeps, 'metrics'>, body: unknown): Promise<WebhookHandled> {
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
  let received = 0;
  let throttled = 0;
  const now = deps.clock();
  for (const message of webhook.inbound) {
    // Meta's time of the message, but never in the future of ours: a skewed clock
    // must not stretch the window.
    const at = Math.min(message.at ?? now, now);
    const accountIds = await findAccountIdsByPhoneNumberId(deps.db, message.phoneNumberId);
    for (const accountId of accountIds) {
      await touchWhatsappSession(deps.db, { accountId, destination: message.from, at });
      sessions += 1;
    }
    const replyTo = await answeredMessage(deps.db, message, accountIds);
    const arriving = arrivingWhatsapp(message, { receivedAt: at, replyTo });
    if (!(await admitInbound(deps, 'whatsapp', arriving.from))) {
      throttled += 1;
      continue;
    }
    const recorded = await receiveInbound(deps, arriving);
    if (recorded.stored) received += 1;
  }
  return { statuses, unknownStatuses, sessions, received, throttled };
}

/** herald's msgid of the message this one quotes, reacts to or presses a button of, when it was sent from this number's accounts. */
async function answeredMessage(db: Executor, message: WebhookInboundMessage, accountIds: readonly string[]): Promise<string | undefined> {
  if (message.answers === undefined) return undefined;
  const sent = await findMessageByProviderRef(db, 'whatsapp', message.answers);
  return sent !== undefined && accountIds.includes(sent.accountId) ? sent.id : undefined;
}
