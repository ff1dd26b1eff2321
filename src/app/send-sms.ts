import { channelActive, type Account } from '../domain/account.ts';
import type { SmsPayload } from '../domain/outbound.ts';
import { ok, reject, RejectionError, type Result } from '../domain/result.ts';
import { commitOrReject } from './commit-or-reject.ts';
import { parseSmsRequest, splitGsmText } from '../domain/sms-request.ts';
import type { KeyMode } from '../domain/key-mode.ts';
import { insertSend, type NewMessage } from '../store/messages.ts';
import { optedOutAmong } from '../store/consent-ledger.ts';
import { accountSmsSenders } from '../store/inbound-messages.ts';
import { findAccount } from '../store/accounts.ts';
import type { AppDeps } from './deps.ts';
import { eventOptions } from './event-options.ts';
import { chargeMessages, costOf } from './send-charge.ts';

export interface SmsAccepted {
  readonly result: string;
  readonly total_contacts: number;
  readonly total_messages_sent: number;
  readonly messages_left: number;
  readonly messages: readonly { readonly mobile_number: string; readonly msgid: string }[];
}

export const SMS_ACCEPTED_TEXT = 'SMS queued for delivery';

/** POST /v1/sms/send: costs segments × numbers prepaid messages, all or nothing (nothing with a test key). */
export async function sendSms(deps: AppDeps, account: Account, body: unknown, mode: KeyMode = 'live'): Promise<Result<SmsAccepted>> {
  if (!channelActive(account, 'sms')) return reject('serviceInactive');
  const parsed = parseSmsRequest(body, deps.limits);
  if (!parsed.ok) return parsed;
  const { text, segments, numbers } = parsed.value;
  const options = eventOptions(body, deps.limits);
  if (!options.ok) return options;

  const payload: SmsPayload = { text, segments: splitGsmText(text) };
  // A number that answered STOP to this sender is answered like any other (it counts in
  // total_contacts and gets a msgid) but is stored as dropped: not sent, not billed, sms.dropped.
  const sender = payload.from ?? (await accountSmsSenders(deps.db, account.id))[0] ?? '';
  const optedOut = await optedOutAmong(deps.db, account.id, 'sms', numbers, sender);
  const messages: NewMessage[] = numbers.map((number) => optedOut.has(number)
    ? { id: deps.newId(), recipient: number, role: 'to', costMessages: 0, costBalance: 0, dropped: true, dropReason: 'opted_out' }
    : { id: deps.newId(), recipient: number, role: 'to', costMessages: costOf(mode, segments), costBalance: 0 });
  const cost = segments * (numbers.length - optedOut.size);
  const sendId = deps.newId();
  const now = deps.clock();
  // The unit of work returns the answer: an Idempotency-Key is stored with it in the same transaction (app/idempotent-send.ts).
  const committed = await commitOrReject(deps.commit, async (tx): Promise<SmsAccepted> => {
    // Debit last: the account row stays locked (PostgreSQL) only from here to the commit.
    await insertSend(tx, { id: sendId, accountId: account.id, channel: 'sms', payload, now, eventIds: deps.newId, options: { ...options.value, mode }, requestId: deps.requestId }, messages);
    const left = cost === 0
      ? (await findAccount(tx, account.id))?.messagesLeft ?? account.messagesLeft
      : await chargeMessages(tx, { account, mode, amount: cost, now, reason: 'sms.send', sendId, ledgerId: deps.newId });
    if (left === null) throw new RejectionError({ code: 'noMessagesLeft' });
    return {
      result: SMS_ACCEPTED_TEXT,
      total_contacts: numbers.length,
      total_messages_sent: cost,
      messages_left: left,
      messages: messages.map((m) => ({ mobile_number: m.recipient, msgid: m.id })),
    };
  });
  if (!committed.ok) return committed;
  deps.metrics.messagesAccepted('sms', messages.length - optedOut.size);
  if (optedOut.size > 0) deps.wakeWebhooks?.();
  if (optedOut.size < messages.length) deps.wakeOutbox();
  return ok(committed.value);
}
