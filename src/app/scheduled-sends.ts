import type { Channel } from '../domain/account.ts';
import type { KeyMode } from '../domain/key-mode.ts';
import { formatMoney } from '../domain/money.ts';
import { ok, reject, RejectionError, type Rejection, type Result } from '../domain/result.ts';
import { parseReschedule } from '../domain/send-at.ts';
import { refundWithEntry } from '../store/accounts.ts';
import { findMessage, recordEvent, type StoredMessage } from '../store/messages.ts';
import { moveScheduledMessage, withdrawScheduledRow } from '../store/scheduled-messages.ts';
import { commitOrReject } from './commit-or-reject.ts';
import type { AppDeps } from './deps.ts';

// Cancelling and moving a scheduled send's message (README "Scheduled sends"): only while
// it is still `scheduled`, i.e. before the worker claimed it at its time; after that, 409
// with the status it is in. A cancel gives back what the message was billed (a `refund`
// ledger entry, as a message that failed before leaving gets), in the same transaction
// that takes it out of the outbox, so it is refunded once and never sent.

/** Who asks: the account, the channels its scopes reach, and its key's mode (a session is live). */
export interface ScheduleCaller {
  readonly accountId: string;
  readonly channels: readonly Channel[];
  readonly mode: KeyMode;
}

export interface ScheduleCancelled {
  readonly msgid: string;
  readonly status: 'cancelled';
  /** What was given back: prepaid messages, and balance in major units (WhatsApp). */
  readonly refunded: { readonly messages: number; readonly balance: number };
}

export interface ScheduleMoved {
  readonly msgid: string;
  readonly status: 'scheduled';
  readonly send_at: string;
}

export const TEST_KEY_LIVE_MESSAGE = 'a test key cancels and moves only messages sent with a test key';

/** Why the caller may not touch this message of its account: its channel's scope missing (401), a test key on a live one (403). */
function callerRefusal(caller: ScheduleCaller, message: StoredMessage): Rejection | undefined {
  if (!caller.channels.includes(message.channel)) return { code: 'keyNotAuthorized' };
  if (caller.mode === 'test' && message.mode !== 'test') return { code: 'testKeyRefused', detail: TEST_KEY_LIVE_MESSAGE };
  return undefined;
}

/**
 * The refusal of a caller for an existing message, for a route to answer before it reads
 * a body (a key without the channel's scope learns nothing of the body's checks); a
 * message that is not there is left to the use case's 404.
 */
export async function scheduleCallerRefusal(deps: AppDeps, caller: ScheduleCaller, msgid: string): Promise<Rejection | undefined> {
  const message = await findMessage(deps.db, caller.accountId, msgid);
  return message === undefined ? undefined : callerRefusal(caller, message);
}

/** The caller's message while it waits for its time; the refusal otherwise (404, 401, 403, 409). */
async function waitingMessage(deps: AppDeps, caller: ScheduleCaller, msgid: string): Promise<Result<StoredMessage>> {
  const message = await findMessage(deps.db, caller.accountId, msgid);
  if (message === undefined) return reject('notFound');
  const refusal = callerRefusal(caller, message);
  if (refusal !== undefined) return { ok: false, rejection: refusal };
  if (message.status !== 'scheduled') return reject('messageNotScheduled', { status: message.status });
  return ok(message);
}

/** A claim that won the race between the read and the transaction: answered with the status it left. */
async function lostRace<T>(deps: AppDeps, caller: ScheduleCaller, msgid: string, result: Result<T>): Promise<Result<T>> {
  if (result.ok || result.rejection.code !== 'messageNotScheduled' || result.rejection.status !== undefined) return result;
  const now = await findMessage(deps.db, caller.accountId, msgid);
  return reject('messageNotScheduled', { status: now?.status ?? 'sending' });
}

/** DELETE /v1/messages/:msgid/schedule. */
export async function cancelScheduled(deps: AppDeps, caller: ScheduleCaller, msgid: string): Promise<Result<ScheduleCancelled>> {
  const waiting = await waitingMessage(deps, caller, msgid);
  if (!waiting.ok) return waiting;
  const message = waiting.value;
  const refunded = message.costMessages > 0 || message.costBalance > 0;
  const now = deps.clock();
  const committed = await commitOrReject(deps.commit, async (tx): Promise<ScheduleCancelled> => {
    if (!(await withdrawScheduledRow(tx, message.id))) throw new RejectionError({ code: 'messageNotScheduled' });
    const { moved } = await recordEvent(tx, { messageId: message.id, status: 'cancelled', eventId: deps.newId(), at: now, data: { refunded } });
    if (!moved) throw new RejectionError({ code: 'messageNotScheduled' });
    await refundWithEntry(tx, {
      id: deps.newId(), accountId: caller.accountId, at: now, messagesDelta: message.costMessages, balanceDelta: message.costBalance, sendId: message.sendId,
    }, now);
    return { msgid: message.id, status: 'cancelled', refunded: { messages: message.costMessages, balance: formatMoney(message.costBalance) } };
  });
  if (committed.ok) deps.wakeWebhooks?.();
  return lostRace(deps, caller, msgid, committed);
}

/** PATCH /v1/messages/:msgid/schedule {send_at}: a new time, with a `*.scheduled` event that carries it. */
export async function rescheduleMessage(deps: AppDeps, caller: ScheduleCaller, msgid: string, body: unknown): Promise<Result<ScheduleMoved>> {
  const waiting = await waitingMessage(deps, caller, msgid);
  if (!waiting.ok) return waiting;
  const now = deps.clock();
  const sendAt = parseReschedule(body, now);
  if (!sendAt.ok) return sendAt;
  const at = new Date(sendAt.value).toISOString();
  const committed = await commitOrReject(deps.commit, async (tx): Promise<ScheduleMoved> => {
    if (!(await moveScheduledMessage(tx, msgid, sendAt.value, now))) throw new RejectionError({ code: 'messageNotScheduled' });
    await recordEvent(tx, { messageId: msgid, type: 'scheduled', eventId: deps.newId(), at: now, data: { send_at: at } });
    return { msgid, status: 'scheduled', send_at: at };
  });
  if (committed.ok) deps.wakeWebhooks?.();
  return lostRace(deps, caller, msgid, committed);
}
