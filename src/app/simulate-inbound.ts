import type { Account, Channel } from '../domain/account.ts';
import { invalidField } from '../domain/admin-input.ts';
import { isSimulatorRecipient, SIMULATOR_EMAIL_DOMAIN, SIMULATOR_NUMBER_PREFIX } from '../domain/simulator.ts';
import { inboundData } from '../domain/inbound-message.ts';
import { ok, type Result } from '../domain/result.ts';
import { receiveInbound, type InboundDeps } from './receive-inbound.ts';

// POST /v1/sandbox/inbound: a message "from" a simulator number or address, taken as if
// its peer had delivered it, so a handler can be tested before going live. It is routed
// to the caller's account, stored, its keyword applied (a simulator number's opt-out
// touches no real person), posted with `test: true`; a keyword's reply is a test message.

export const MAX_SIMULATED_TEXT = 4096;

export interface SimulatedInboundBody {
  readonly channel: Channel;
  readonly from: string;
  readonly to?: string;
  readonly text: string;
  readonly subject?: string;
}

export async function simulateInbound(deps: InboundDeps, account: Account, body: SimulatedInboundBody): Promise<Result<Record<string, unknown>>> {
  const from = body.channel === 'email' ? body.from.trim().toLowerCase() : body.from.trim();
  if (!isSimulatorRecipient(body.channel, from)) {
    return invalidField('from', body.channel === 'email' ? `must be an address at ${SIMULATOR_EMAIL_DOMAIN}` : `must be a simulator number, +${SIMULATOR_NUMBER_PREFIX} and three digits`);
  }
  const to = body.to ?? defaultReceiver(account, body.channel);
  const recorded = await receiveInbound(deps, {
    channel: body.channel, from, to, text: body.text, receivedAt: deps.clock(), accountId: account.id, test: true,
    ...(body.channel === 'email' ? { content: { subject: body.subject ?? '' } } : body.channel === 'whatsapp' ? { content: { type: 'text' } } : {}),
  });
  // Simulated messages carry no peer id, so each is stored: a missing message would be a bug.
  if (recorded.message === undefined) throw new Error(`simulated inbound ${recorded.id} was not stored`);
  return ok(inboundData(recorded.message, deps.publicUrl));
}

/** Where a simulated message is written to when the body names nothing: the account's default sender, its phone number id, or a sandbox address. */
function defaultReceiver(account: Account, channel: Channel): string {
  if (channel === 'sms') return account.smsSenders[0] ?? 'sandbox';
  if (channel === 'whatsapp') return account.whatsappPhoneNumberId ?? 'sandbox';
  return `inbound@${SIMULATOR_EMAIL_DOMAIN}`;
}
