import { channelActive, type Account } from '../domain/account.ts';
import type { SmsPayload } from '../domain/outbound.ts';
import { ok, reject, RejectionError, type Result } from '../domain/result.ts';
import { commitOrReject } from './commit-or-reject.ts';
import { parseSmsRequest, splitGsmText } from '../domain/sms-request.ts';
import { senderOfSend } from '../domain/sms-sender.ts';
import { isJsonObject, ownField } from '../domain/json-object.ts';
import type { KeyMode } from '../domain/key-mode.ts';
import { insertSend, type NewMessage, type SendOptions, type SendWithMessages } from '../store/messages.ts';
import type { Tx } from '../store/database.ts';
import { optedOutAmong } from '../store/consent-ledger.ts';
import { findAccount } from '../store/accounts.ts';
import type { AppDeps } from './deps.ts';
import { eventOptions } from './event-options.ts';
import { parseSendAt } from '../domain/send-at.ts';
import { chargeMessages, costOf } from './send-charge.ts';
import { checkSmsFallback, reserveFallbackLegs, type ChainAnswer } from './fallback-chain.ts';
import { checkEmailSend } from './send-email.ts';

export interface SmsAccepted {
  readonly result: string;
  readonly total_contacts: number;
  readonly total_messages_sent: number;
  readonly messages_left: number;
  readonly messages: readonly { readonly mobile_number: string; readonly msgid: string }[];
  /** herald's own: the fallback chain the send named, every leg's msgid (docs/fallback.md). */
  readonly fallback?: ChainAnswer;
}

export const SMS_ACCEPTED_TEXT = 'SMS queued for delivery';

/** POST /v1/sms/send: costs segments × numbers prepaid messages, all or nothing (nothing with a test key). */
export async function sendSms(deps: AppDeps, account: Account, body: unknown, mode: KeyMode = 'live'): Promise<Result<SmsAccepted>> {
  const prepared = await prepareSmsSend(deps, account, body, mode);
  if (!prepared.ok) return prepared;
  const fallback = await checkSmsFallback(deps, account, body, { numbers: prepared.value.numbers.length, mode }, checkEmailSend);
  if (!fallback.ok) return fallback;
  const now = deps.clock();
  // The unit of work returns the answer: an Idempotency-Key is stored with it in the same transaction (app/idempotent-send.ts).
  const committed = await commitOrReject(deps.commit, async (tx): Promise<SmsAccepted> => {
    // Debit last: the account row stays locked (PostgreSQL) only from here to the commit.
    const rows = smsSendRows(deps, account, prepared.value, now);
    await insertSend(tx, rows.send, rows.messages);
    const left = await chargeSmsSend(tx, deps, account, mode, prepared.value, now);
    if (left === null) throw new RejectionError({ code: 'noMessagesLeft' });
    // A chain's legs (an SMS to one number) are reserved and debited with its one message; the answer counts both debits.
    const [first] = prepared.value.messages;
    if (fallback.value === null || first === undefined) return smsAnswer(prepared.value, left);
    const reserved = await reserveFallbackLegs(tx, deps, {
      account, mode, legs: fallback.value, first: { msgid: first.id, sendId: prepared.value.sendId, channel: 'sms' }, options: prepared.value.options, now,
    });
    return { ...smsAnswer(prepared.value, reserved.messagesLeft), fallback: reserved.chain };
  });
  if (!committed.ok) return committed;
  smsSendsCommitted(deps, [prepared.value]);
  return ok(committed.value);
}

/** A checked SMS send with its ids and messages, ready for a unit of work (a batch item's too). */
export interface PreparedSmsSend {
  readonly sendId: string;
  readonly payload: SmsPayload;
  readonly options: SendOptions;
  readonly numbers: readonly string[];
  readonly messages: readonly NewMessage[];
  /** Prepaid messages it costs: segments × the numbers not opted out. */
  readonly cost: number;
  readonly optedOut: number;
}

/** A checked SMS send: its text as sent, the numbers, its event options and sender. */
export interface SmsSend {
  readonly payload: SmsPayload;
  readonly options: SendOptions;
  readonly numbers: readonly string[];
  readonly segments: number;
  /** The sender's opt-outs apply (the empty text: the service's default sender). */
  readonly sender: string;
}

/** The checks of POST /v1/sms/send in the interface's order, then the opt-outs read; writes nothing. */
export async function prepareSmsSend(deps: AppDeps, account: Account, body: unknown, mode: KeyMode): Promise<Result<PreparedSmsSend>> {
  const checked = checkSmsSend(deps, account, body, mode);
  if (!checked.ok) return checked;
  const send = checked.value;
  return ok(smsMessagesOf(deps, mode, send, await optedOutAmong(deps.db, account.id, 'sms', send.numbers, send.sender)));
}

/** The checks of POST /v1/sms/send in the interface's order (a batch item's too); reads nothing. */
export function checkSmsSend(deps: AppDeps, account: Account, body: unknown, mode: KeyMode): Result<SmsSend> {
  if (!channelActive(account, 'sms')) return reject('serviceInactive');
  const parsed = parseSmsRequest(body, deps.limits);
  if (!parsed.ok) return parsed;
  const { text, segments, numbers } = parsed.value;
  const options = eventOptions(body, deps.limits);
  if (!options.ok) return options;
  const sendAt = parseSendAt(body, deps.clock());
  if (!sendAt.ok) return sendAt;
  // herald's own field, read after the spec's: a body valid by the interface never fails here.
  const sender = senderOfSend(isJsonObject(body) ? ownField(body, 'from') : undefined, account.smsSenders);
  if (!sender.ok) return sender;
  const payload: SmsPayload = { text, segments: splitGsmText(text), ...(sender.value === undefined ? {} : { from: sender.value }) };
  return ok({ payload, options: { ...options.value, mode, ...sendAt.value }, numbers, segments, sender: sender.value ?? '' });
}

/** Every number its msgid, given the numbers that opted out of the sender. */
export function smsMessagesOf(deps: AppDeps, mode: KeyMode, send: SmsSend, optedOut: ReadonlySet<string>): PreparedSmsSend {
  // A number that answered STOP to this sender is answered like any other (it counts in
  // total_contacts and gets a msgid) but is stored as dropped: not sent, not billed, sms.dropped.
  const messages: NewMessage[] = send.numbers.map((number) => optedOut.has(number)
    ? { id: deps.newId(), recipient: number, role: 'to', costMessages: 0, costBalance: 0, dropped: true, dropReason: 'opted_out' }
    : { id: deps.newId(), recipient: number, role: 'to', costMessages: costOf(mode, send.segments), costBalance: 0 });
  const dropped = messages.filter((m) => m.dropped === true).length;
  return {
    sendId: deps.newId(), payload: send.payload, options: send.options, numbers: send.numbers, messages,
    cost: send.segments * (send.numbers.length - dropped), optedOut: dropped,
  };
}

/** The send and its messages as store/messages.ts insertSends writes them (with outbox rows and events). */
export function smsSendRows(deps: AppDeps, account: Account, prepared: PreparedSmsSend, now: number): SendWithMessages {
  return {
    send: { id: prepared.sendId, accountId: account.id, channel: 'sms', payload: prepared.payload, now, eventIds: deps.newId, options: prepared.options, requestId: deps.requestId },
    messages: prepared.messages,
  };
}

/** The debit of a prepared send in the caller's unit of work: the messages left, or null when it would overdraw. */
export async function chargeSmsSend(tx: Tx, deps: AppDeps, account: Account, mode: KeyMode, prepared: PreparedSmsSend, now: number): Promise<number | null> {
  if (prepared.cost === 0) return (await findAccount(tx, account.id))?.messagesLeft ?? account.messagesLeft;
  return chargeMessages(tx, { account, mode, amount: prepared.cost, now, reason: 'sms.send', sendId: prepared.sendId, ledgerId: deps.newId });
}

/** POST /v1/sms/send's 200 body for a stored send, with what the account had left after it. */
export const smsAnswer = (prepared: PreparedSmsSend, left: number): SmsAccepted => ({
  result: SMS_ACCEPTED_TEXT,
  total_contacts: prepared.numbers.length,
  total_messages_sent: prepared.cost,
  messages_left: left,
  messages: prepared.messages.map((m) => ({ mobile_number: m.recipient, msgid: m.id })),
});

/** After the commit: the accepted count; the webhooks woken for opted-out numbers' events, the outbox for the rest. */
export function smsSendsCommitted(deps: AppDeps, sends: readonly PreparedSmsSend[]): void {
  deps.metrics.messagesAccepted('sms', sends.reduce((sum, s) => sum + s.messages.length - s.optedOut, 0));
  if (sends.some((s) => s.optedOut > 0)) deps.wakeWebhooks?.();
  if (sends.some((s) => s.optedOut < s.messages.length)) deps.wakeOutbox();
}
