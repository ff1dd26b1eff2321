import type { MoMessage } from '../channels/sms/mo-message.ts';
import type { ArrivingMessage } from '../domain/inbound-message.ts';
import type { Tx } from '../store/database.ts';
import { deleteSmsMessage, holdSmsMessage, insertSmsPart, lockSmsMessage, markSmsMessageJoined, overdueSmsMessages, smsMessageParts, type SmsMessageKey, type StoredSmsPart } from '../store/inbound-sms-parts.ts';
import { admitInbound, afterInbound, receiveInbound, recordInbound, type InboundDeps, type InboundRecorded } from './receive-inbound.ts';

// An SMS a person sent, as the SMPP session hands it over: a whole message goes straight
// to receiveInbound; a part of a concatenated one is stored (inbound_sms_parts) and, in
// the unit of work that stores the last one, the parts are joined in order and recorded
// (the rows stay, marked joined, until the time-out, to recognise a late resend). The SMSC's PDU is answered only after this resolves, so a part is never
// acknowledged before it is stored, and a crash loses nothing the SMSC will not resend.
// Parts that never complete are delivered as they are after the time-out
// (deliverOverdueSmsParts, a periodic job: HERALD_SMS_REASSEMBLY_TIMEOUT_MS).

export type ReceiveSmsDeps = InboundDeps;

export const DEFAULT_SMS_REASSEMBLY_TIMEOUT_MS = 300_000;
/** How often the time-out is looked for (queue/jobs.ts). */
export const SMS_REASSEMBLY_SWEEP_MS = 30_000;
/** Messages past their time-out taken in one turn of that job (delivered incomplete, or only removed once joined), each in its own unit of work; the rest wait for the next turn. */
const OVERDUE_PER_TURN = 1000;

/** Takes one PDU's message or part; `throttled` when its sender is past the bound (the SMSC is asked to send it again later). */
export async function receiveSms(deps: ReceiveSmsDeps, sms: MoMessage): Promise<'throttled' | undefined> {
  // Each PDU counts, a part as much as a whole message: it is the work a sender makes.
  if (!(await admitInbound(deps, 'sms', sms.from))) return 'throttled';
  const now = deps.clock();
  if (sms.kind === 'whole') {
    await receiveInbound(deps, { channel: 'sms', from: sms.from, to: sms.to, text: sms.text, receivedAt: now });
    return undefined;
  }
  const key: SmsMessageKey = { sender: sms.from, recipient: sms.to, reference: sms.reference, total: sms.total };
  const recorded = await deps.commit.run(async (tx) => {
    await holdSmsMessage(tx, key, deps.newId(), now);
    let stored = await smsMessageParts(tx, key);
    if (stored?.joined === true) {
      // The same part again: a resend whose acknowledgement was lost. Another text under a
      // joined message's key: a new message that reuses its reference, begun afresh.
      if (stored.parts.some((part) => part.part === sms.part && part.text === sms.text)) return undefined;
      await deleteSmsMessage(tx, key);
      await holdSmsMessage(tx, key, deps.newId(), now);
    }
    await insertSmsPart(tx, key, { id: deps.newId(), part: sms.part, text: sms.text, now });
    stored = await smsMessageParts(tx, key);
    if (stored === undefined || stored.parts.length < key.total) return undefined;
    await markSmsMessageJoined(tx, key);
    return recordInbound(tx, deps, joined(key, stored.parts, stored.firstAt));
  });
  if (recorded !== undefined) afterInbound(deps, [recorded]);
  return undefined;
}

/**
 * Delivers the messages whose first part came `timeoutMs` or more ago with the parts
 * they have, in order, gaps left out; `content` says `{ incomplete: true, parts, of }`.
 * Removes the rows of those joined already. Returns how many were delivered.
 */
export async function deliverOverdueSmsParts(deps: ReceiveSmsDeps, timeoutMs: number, signal?: AbortSignal): Promise<number> {
  const overdue = await overdueSmsMessages(deps.db, deps.clock() - timeoutMs, OVERDUE_PER_TURN);
  const delivered: InboundRecorded[] = [];
  for (const key of overdue) {
    if (signal?.aborted === true) break;
    // Locked and read again in the unit of work: the last part may have come meanwhile and
    // joined them, or another worker's turn delivered them.
    const recorded = await deps.commit.run(async (tx: Tx) => {
      if (!(await lockSmsMessage(tx, key))) return undefined;
      const stored = await smsMessageParts(tx, key);
      if (stored === undefined) return undefined;
      await deleteSmsMessage(tx, key);
      return stored.joined ? undefined : recordInbound(tx, deps, joined(key, stored.parts, stored.firstAt));
    });
    if (recorded !== undefined) delivered.push(recorded);
  }
  afterInbound(deps, delivered);
  return delivered.length;
}


/** The parts' text in order; a message with parts missing says so in its content. */
function joined(key: SmsMessageKey, parts: readonly StoredSmsPart[], firstAt: number): ArrivingMessage {
  const whole = parts.length === key.total;
  return {
    channel: 'sms',
    from: key.sender,
    to: key.recipient,
    // A gap can leave half a surrogate pair (UCS-2 split mid-character): shown as U+FFFD.
    text: parts.map((part) => part.text).join('').toWellFormed(),
    receivedAt: firstAt,
    ...(whole ? {} : { content: { incomplete: true, parts: parts.length, of: key.total } }),
  };
}
