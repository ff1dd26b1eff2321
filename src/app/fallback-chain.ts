import { channelActive, type Account } from '../domain/account.ts';
import { parseFallbackRequest } from '../domain/fallback-request.ts';
import type { KeyMode } from '../domain/key-mode.ts';
import type { EmailPayload, SmsPayload } from '../domain/outbound.ts';
import { ok, reject, RejectionError, type Result } from '../domain/result.ts';
import { parseSmsRequest, splitGsmText } from '../domain/sms-request.ts';
import { senderOfSend } from '../domain/sms-sender.ts';
import { ownField } from '../domain/json-object.ts';
import type { Db, Tx } from '../store/database.ts';
import { chainLegs, insertFallbackLeg, legMessages, markSendInChain, sendChainMark, type FallbackLegState } from '../store/fallback-legs.ts';
import type { MessageStatus } from '../domain/message-status.ts';
import type { SendOptions } from '../store/messages.ts';
import type { AppDeps } from './deps.ts';
import { chargeMessages, costOf } from './send-charge.ts';

// A send's fallback chain at acceptance (docs/fallback.md): each leg checked as its own
// send would be, then reserved in the send's unit of work — its row in fallback_legs, its
// msgid, and its cost debited now (refunded if it never goes: app/fallback-release.ts).

/** A leg checked and priced, waiting for its reservation. */
export interface CheckedLeg {
  readonly channel: 'sms' | 'email';
  readonly recipient: string;
  readonly payload: SmsPayload | EmailPayload;
  /** The leg's own send options (an email's tracking and certified); absent: the chain's first send's. */
  readonly options?: SendOptions;
  /** Prepaid messages it costs (an SMS's segments; an email's one). */
  readonly messages: number;
  readonly afterMs: number;
  readonly after: string;
}

/**
 * POST /v1/email's own checks and the send they make (app/send-email.ts checkEmailSend),
 * passed in by the caller: send-email.ts reserves chains through this module, so this
 * module does not import it.
 */
export type EmailCheck = (deps: AppDeps, account: Account, body: unknown, mode: KeyMode) => Promise<Result<{
  readonly payload: EmailPayload;
  readonly options: SendOptions;
  readonly listed: readonly { readonly email: string }[];
}>>;

/** What the send's answer says of its chain: every leg's msgid, the first included. */
export interface ChainAnswer {
  readonly chain_id: string;
  readonly legs: readonly { readonly leg: number; readonly channel: string; readonly msgid: string; readonly after?: string }[];
}

/**
 * The `fallback` field of a WhatsApp send to `destination` (digits, no `+`): null when
 * absent. An SMS leg goes to the same number unless its message names one.
 */
export function checkWhatsappFallback(deps: Pick<AppDeps, 'limits'>, account: Account, body: unknown, destination: string): Result<readonly CheckedLeg[] | null> {
  return checkSmsLegs(deps, account, body, `+${destination}`);
}

/**
 * The `fallback` field of an email send (null when absent): a chain follows one message,
 * so the email must have one recipient; an SMS leg names its number (`mobile_numbers`).
 */
export function checkEmailFallback(deps: Pick<AppDeps, 'limits'>, account: Account, body: unknown, recipients: number): Result<readonly CheckedLeg[] | null> {
  const legs = checkSmsLegs(deps, account, body, undefined);
  if (legs.ok && legs.value !== null && recipients !== 1) {
    return reject('invalidField', { detail: 'fallback: an email with a fallback goes to one recipient (one to, no cc or bcc)' });
  }
  return legs;
}

/**
 * The `fallback` field of an SMS send (null when absent): a chain follows one message, so
 * the SMS must go to one number; an email leg is checked as POST /v1/email checks its body,
 * and goes to one recipient.
 */
export async function checkSmsFallback(
  deps: AppDeps, account: Account, body: unknown, send: { readonly numbers: number; readonly mode: KeyMode }, checkEmail: EmailCheck,
): Promise<Result<readonly CheckedLeg[] | null>> {
  const requested = parseFallbackRequest(body, ['email']);
  if (!requested.ok) return requested;
  if (requested.value === null) return ok(null);
  if (send.numbers !== 1) return reject('invalidField', { detail: 'fallback: an SMS with a fallback goes to one number' });
  const legs: CheckedLeg[] = [];
  for (const [index, leg] of requested.value.entries()) {
    const checked = await checkEmail(deps, account, leg.message, send.mode);
    if (!checked.ok) return checked;
    const [recipient] = checked.value.listed;
    if (recipient === undefined || checked.value.listed.length !== 1) {
      return reject('invalidField', { detail: `fallback[${index}].message: the email goes to one recipient (one to, no cc or bcc)` });
    }
    legs.push({ channel: 'email', recipient: recipient.email, payload: checked.value.payload, options: checked.value.options, messages: 1, afterMs: leg.afterMs, after: leg.after });
  }
  return ok(legs);
}

/** SMS legs, each checked as POST /v1/sms/send checks its body; `number`: where one goes when its message names none. */
function checkSmsLegs(deps: Pick<AppDeps, 'limits'>, account: Account, body: unknown, number: string | undefined): Result<readonly CheckedLeg[] | null> {
  const requested = parseFallbackRequest(body, ['sms']);
  if (!requested.ok) return requested;
  if (requested.value === null) return ok(null);
  const legs: CheckedLeg[] = [];
  for (const [index, leg] of requested.value.entries()) {
    if (!channelActive(account, 'sms')) return reject('serviceInactive');
    const smsBody = ownField(leg.message, 'mobile_numbers') === undefined && number !== undefined ? { ...leg.message, mobile_numbers: [number] } : leg.message;
    const parsed = parseSmsRequest(smsBody, deps.limits);
    if (!parsed.ok) return parsed;
    const [recipient] = parsed.value.numbers;
    if (recipient === undefined || parsed.value.numbers.length !== 1) return reject('invalidField', { detail: `fallback[${index}].message.mobile_numbers must hold one number` });
    const sender = senderOfSend(ownField(leg.message, 'from'), account.smsSenders);
    if (!sender.ok) return sender;
    const payload: SmsPayload = { text: parsed.value.text, segments: splitGsmText(parsed.value.text), ...(sender.value === undefined ? {} : { from: sender.value }) };
    legs.push({ channel: 'sms', recipient, payload, messages: parsed.value.segments, afterMs: leg.afterMs, after: leg.after });
  }
  return ok(legs);
}

interface Reservation {
  readonly account: Account;
  readonly mode: KeyMode;
  readonly legs: readonly CheckedLeg[];
  /** The chain's first message and its send, committed in this unit of work. */
  readonly first: { readonly msgid: string; readonly sendId: string; readonly channel: string };
  readonly options: SendOptions;
  readonly now: number;
}

/**
 * Reserves the chain's legs inside the send's unit of work: a row each, the first send
 * marked, and each leg's cost debited (a test key's: nothing); says the prepaid messages
 * left after the last debit (an SMS send's answer shows them). Throws `noMessagesLeft`
 * (a RejectionError: the whole send rolls back) when the account cannot pay for them.
 */
export async function reserveFallbackLegs(tx: Tx, deps: Pick<AppDeps, 'newId' | 'requestId'>, reservation: Reservation): Promise<{ chain: ChainAnswer; messagesLeft: number }> {
  const { account, mode, legs, first, options, now } = reservation;
  const chainId = deps.newId();
  const total = legs.length + 1;
  await markSendInChain(tx, first.sendId, { chain_id: chainId, leg: 1, legs: total });
  const answer: ChainAnswer['legs'][number][] = [{ leg: 1, channel: first.channel, msgid: first.msgid }];
  let previous = first.msgid;
  let messagesLeft = account.messagesLeft;
  for (const [index, leg] of legs.entries()) {
    const msgid = deps.newId();
    const sendId = deps.newId();
    // The leg's own options, or the chain's (family, metadata, campaign name); the mode is the chain's, and
    // the send time is the first leg's alone: the next one's is `after` it.
    const { mode: _mode, sendAt: _sendAt, ...kept } = leg.options ?? options;
    await insertFallbackLeg(tx, {
      id: msgid, accountId: account.id, chainId, sendId, previousMessageId: previous, channel: leg.channel, recipient: leg.recipient,
      payload: leg.payload, options: kept, mode, leg: index + 2, legs: total, afterMs: leg.afterMs,
      reservedMessages: costOf(mode, leg.messages), reservedBalance: 0, dueAt: (options.sendAt ?? now) + leg.afterMs, requestId: deps.requestId ?? null,
    }, now);
    const left = await chargeMessages(tx, { account, mode, amount: leg.messages, now, reason: leg.channel === 'email' ? 'email.send' : 'sms.send', sendId, ledgerId: deps.newId });
    if (left === null) throw new RejectionError({ code: 'noMessagesLeft' });
    messagesLeft = left;
    answer.push({ leg: index + 2, channel: leg.channel, msgid, after: leg.after });
    previous = msgid;
  }
  return { chain: { chain_id: chainId, legs: answer }, messagesLeft };
}

/** A chain as the message page shows it (GET /v1/messages/:msgid's `fallback`). */
export interface ChainView {
  readonly chain_id: string;
  readonly legs: readonly {
    readonly leg: number;
    readonly channel: string;
    readonly msgid: string;
    /** waiting | released | cancelled (the first leg: released). */
    readonly state: FallbackLegState;
    /** Its message's status; null while it has no message (waiting, cancelled). */
    readonly status: MessageStatus | null;
  }[];
}

/** The chain the message's send belongs to, every leg with its msgid and state; undefined when none. */
export async function chainOfSend(db: Db, accountId: string, sendId: string): Promise<ChainView | undefined> {
  const mark = await sendChainMark(db, sendId);
  if (mark === null) return undefined;
  const legs = await chainLegs(db, accountId, mark.chain_id);
  const firstId = legs[0]?.previousMessageId;
  if (firstId === undefined) return undefined;
  const messages = await legMessages(db, accountId, [firstId, ...legs.map((l) => l.id)]);
  const first = messages.get(firstId);
  return {
    chain_id: mark.chain_id,
    legs: [
      { leg: 1, channel: first?.channel ?? 'whatsapp', msgid: firstId, state: 'released', status: first?.status ?? null },
      ...legs.map((l) => ({ leg: l.leg, channel: l.channel, msgid: l.id, state: l.state, status: messages.get(l.id)?.status ?? null })),
    ],
  };
}
