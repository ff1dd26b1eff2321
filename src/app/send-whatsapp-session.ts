import { channelActive, type Account } from '../domain/account.ts';
import type { KeyMode } from '../domain/key-mode.ts';
import type { WhatsappPayload } from '../domain/outbound.ts';
import { reject, type Result } from '../domain/result.ts';
import { parseWhatsappSessionRequest, sessionOpen } from '../domain/whatsapp-session-request.ts';
import { lastInboundAt } from '../store/whatsapp-sessions.ts';
import type { AppDeps } from './deps.ts';
import { eventOptions } from './event-options.ts';
import { commitWhatsappSend, type WhatsappAccepted } from './send-whatsapp.ts';

/**
 * POST /v1/whatsapp/sendMessage: free text to a destination that wrote to the
 * account's number in the last 24 hours; priced and answered like a template message.
 */
export async function sendWhatsappSession(deps: AppDeps, account: Account, body: unknown, mode: KeyMode = 'live'): Promise<Result<WhatsappAccepted>> {
  if (!channelActive(account, 'whatsapp')) return reject('serviceInactive');
  const parsed = parseWhatsappSessionRequest(body);
  if (!parsed.ok) return parsed;
  const { destination, message } = parsed.value;
  const options = eventOptions(body, deps.limits);
  if (!options.ok) return options;

  if (!sessionOpen(await lastInboundAt(deps.db, account.id, destination), deps.clock())) return reject('noOpenSession');

  const payload: WhatsappPayload = { kind: 'text', text: message };
  return commitWhatsappSend(deps, account, destination, payload, { ...options.value, mode });
}
