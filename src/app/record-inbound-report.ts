import { complaintDetails, isComplaint, type FeedbackReport } from '../domain/arf.ts';
import {
  dsnBounce, dsnDelivery, msgidFromEnvelopeId, msgidFromMessageId, namesRecipient, recipientFor, SUCCESS_ACTIONS,
  type DeliveryStatus, type RecipientStatus,
} from '../domain/dsn.ts';
import { canTransition } from '../domain/message-status.ts';
import { parseVerp, verpTags, type VerpParts } from '../domain/verp-address.ts';
import type { ForgedReportReason } from '../metrics/registry.ts';
import type { Tx } from '../store/database.ts';
import { transactionPerWork } from '../store/group-commit.ts';
import { findReportedMessage, hasMessageEvent, insertInboundReport, type InboundReportKind, type ReportedMessage } from '../store/inbound-reports.ts';
import { recordEvent } from '../store/messages.ts';
import { addSuppression } from '../store/suppressions.ts';
import { leaveEveryList } from './campaign-consent.ts';
import { recordConsentChange } from './consent-changes.ts';
import type { KeyDeps } from './api-keys.ts';
import { judgeVerp, verpTagsSince } from './verp-check.ts';

// One message taken by the inbound listener: kept whole in inbound_reports, and in the
// same transaction what it means for the message it names — a DSN's delivery, bounce
// or delay, an ARF complaint, the suppression that follows. A report that cannot be read or
// matched is kept with the reason and changes nothing; the listener accepts it anyway,
// since a remote MTA would otherwise retry it for days. A report is believed only on
// the message's tagged VERP address (domain/verp-address.ts): one that names a message
// without its tag is forged, kept with why, counted, and changes nothing at all.

/** Statuses of a message that has not left herald (a complaint about one is noise). */
const NEVER_LEFT: ReadonlySet<string> = new Set(['queued', 'dropped', 'scheduled', 'cancelled']);

/** The headers of the original message a report returns, which name our msgid. */
export interface ReturnedMessage {
  readonly messageId: string | null;
  readonly returnPath: string | null;
}

/** What inbound/report-reader.ts understood of the MIME. */
export type InboundReading =
  | { readonly kind: 'dsn'; readonly report: DeliveryStatus; readonly returned: ReturnedMessage | null }
  | { readonly kind: 'arf'; readonly report: FeedbackReport; readonly returned: ReturnedMessage | null }
  | { readonly kind: InboundReportKind; readonly error: string; readonly returned: ReturnedMessage | null };

export interface InboundEnvelope {
  /** Null for the null reverse-path `<>` that DSNs are sent from. */
  readonly mailFrom: string | null;
  readonly rcptTo: string;
}

/**
 * - `delivered`: the message moved to delivered (a success DSN: delivered, relayed, expanded), with its event;
 * - `bounced`: the message moved to bounced (a failed DSN), with its event;
 * - `deferred`: a delayed DSN, recorded as an `email.deferred` event without a status change;
 * - `complained`: an ARF complaint, with its event;
 * - `duplicate`: the message already had this delivery, bounce or complaint: no second event
 *   (the suppression is idempotent);
 * - `none`: nothing to do (an error says why, or the report was informational).
 */
export type InboundEffect = 'delivered' | 'bounced' | 'deferred' | 'complained' | 'duplicate' | 'none';

export interface RecordedInboundReport {
  readonly id: string;
  readonly kind: InboundReportKind;
  readonly messageId: string | null;
  readonly effect: InboundEffect;
  readonly error: string | null;
  /** Set when the report named one of our messages without proving it (a wrong or missing VERP tag): nothing applied. */
  readonly forged?: ForgedReportReason;
}

export type InboundDeps = Pick<KeyDeps, 'db' | 'clock' | 'newId' | 'bounceDomain' | 'wakeWebhooks' | 'metrics' | 'signingSecret'> & {
  /** HERALD_EMAIL_RETRY_HOURS in ms: how long an untagged VERP address of a message from before tags is believed. */
  readonly untaggedHorizonMs: number;
};

type VerpSource = 'verp' | 'return-path' | 'original-mail-from';
type MatchSource = VerpSource | 'envelope-id' | 'message-id';
/** A msgid the report names, where, and the VERP address it was read from (null: a Message-ID or ENVID, which prove nothing). */
interface Candidate { readonly msgid: string; readonly from: MatchSource; readonly verp: VerpParts | null }

/** Where a report may name our msgid, most trusted first: the VERP address it was sent to. */
function candidates(deps: InboundDeps, envelope: InboundEnvelope, reading: InboundReading): Candidate[] {
  const found: Candidate[] = [];
  const add = (msgid: string | null, from: MatchSource, verp: VerpParts | null = null): void => {
    if (msgid !== null && !found.some((c) => c.msgid === msgid && c.verp?.tag === verp?.tag)) found.push({ msgid, from, verp });
  };
  const addVerp = (address: string, from: VerpSource): void => {
    const verp = parseVerp(address, deps.bounceDomain);
    if (verp !== null) add(verp.msgid, from, verp);
  };
  addVerp(envelope.rcptTo, 'verp');
  // The ENVID herald sent (delivery-notice-request.ts), echoed by the relay that reports.
  if (reading.kind === 'dsn' && 'report' in reading && reading.report.originalEnvelopeId !== null) {
    add(msgidFromEnvelopeId(reading.report.originalEnvelopeId), 'envelope-id');
  }
  if (reading.returned?.messageId) add(msgidFromMessageId(reading.returned.messageId), 'message-id');
  if (reading.returned?.returnPath) addVerp(reading.returned.returnPath, 'return-path');
  if (reading.kind === 'arf' && 'report' in reading && reading.report.originalMailFrom !== null) {
    addVerp(reading.report.originalMailFrom, 'original-mail-from');
  }
  return found;
}

/** The message a report is believed to be about, or why none is. */
type Match =
  | { readonly kind: 'matched'; readonly message: ReportedMessage; readonly from: MatchSource }
  | { readonly kind: 'forged'; readonly reason: ForgedReportReason; readonly msgid: string }
  | { readonly kind: 'none' };

/**
 * The report's message, believed only on a VERP address whose tag verifies (or an
 * untagged one in its window, app/verp-check.ts). A Message-ID or an ENVID is known to
 * whoever received the message, so a report that names a message only by them, or by
 * a VERP address with a wrong or missing tag, is forged: it applies nothing.
 */
async function matchOf(tx: Tx, deps: InboundDeps, named: readonly Candidate[], now: number): Promise<Match> {
  let doubt: Extract<Match, { kind: 'forged' }> | undefined;
  let tagsSince: number | undefined;
  for (const candidate of named) {
    if (candidate.verp === null) continue;
    const message = await findReportedMessage(tx, candidate.msgid);
    if (!message) continue;
    if (candidate.verp.tag === null) tagsSince ??= await verpTagsSince(tx);
    const verdict = judgeVerp({ tags: verpTags(deps.signingSecret), untaggedHorizonMs: deps.untaggedHorizonMs }, candidate.verp, message, { now, tagsSince });
    if (verdict === 'tagged' || verdict === 'untagged-before-tags') return { kind: 'matched', message, from: candidate.from };
    doubt ??= { kind: 'forged', reason: verdict, msgid: message.id };
  }
  if (doubt) return doubt;
  for (const candidate of named) {
    if (candidate.verp === null && (await findReportedMessage(tx, candidate.msgid))) return { kind: 'forged', reason: 'no-verp', msgid: candidate.msgid };
  }
  return { kind: 'none' };
}

const FORGED_ERRORS: Readonly<Record<ForgedReportReason, (msgid: string) => string>> = {
  'wrong-tag': (msgid) => `forged: the VERP address's tag is not message ${msgid}'s; nothing applied`,
  untagged: (msgid) => `forged: an untagged VERP address for message ${msgid}, taken only for messages sent before tags and within the retry horizon; nothing applied`,
  'no-verp': (msgid) => `forged: message ${msgid} is named only by its Message-ID or envelope id, not by its tagged VERP address; nothing applied`,
};

interface Applied { readonly effect: InboundEffect; readonly error: string | null }

/**
 * Thrown when a notice overtook the outbox's own record of the relay's acceptance (the
 * message is still `sending`): applied now, its `delivered` would come before the
 * `sent` the outbox is about to write. Nothing is kept; the listener answers 451 and the
 * relay sends the notice again later, as an SMSC's early receipt is refused (transports.ts).
 */
export class NoticeTooEarly extends Error {
  readonly msgid: string;
  constructor(msgid: string) {
    super(`message ${msgid} is still being sent: try the notice again later`);
    this.name = 'NoticeTooEarly';
    this.msgid = msgid;
  }
}

export async function recordInboundReport(
  deps: InboundDeps,
  envelope: InboundEnvelope,
  raw: string,
  reading: InboundReading,
): Promise<RecordedInboundReport> {
  const id = deps.newId();
  const at = deps.clock();
  const named = candidates(deps, envelope, reading);
  const base = { id, receivedAt: at, kind: reading.kind, mailFrom: envelope.mailFrom, rcptTo: envelope.rcptTo, raw };
  const understood = 'report' in reading ? { report: reading.report } : {};
  try {
    const recorded = await transactionPerWork(deps.db, deps.metrics.eventsRecorded).run(async (tx) => {
      const match = await matchOf(tx, deps, named, at);
      const message = match.kind === 'matched' ? match.message : undefined;
      const applied: Applied & { write?: () => Promise<void> } = match.kind === 'forged'
        ? { effect: 'none', error: FORGED_ERRORS[match.reason](match.msgid) }
        : await decide(tx, deps, at, reading, message, named);
      const forged = match.kind === 'forged' ? { forged: match.reason } : {};
      // The report first, then its effects: all of it commits, or none of it.
      await insertInboundReport(tx, {
        ...base,
        messageId: message?.id ?? null,
        parsed: {
          ...understood, returned: reading.returned, msgid: message?.id ?? (match.kind === 'forged' ? match.msgid : named[0]?.msgid ?? null),
          matched_by: match.kind === 'matched' ? match.from : null, effect: applied.effect, ...forged,
        },
        error: applied.error,
      });
      await applied.write?.();
      return { id, kind: reading.kind, messageId: message?.id ?? null, effect: applied.effect, error: applied.error, ...forged };
    });
    if (recorded.forged !== undefined) deps.metrics.forgedReportObserved(recorded.forged);
    // Its event may have a webhook delivery: post it now rather than on the dispatcher's next poll.
    else deps.wakeWebhooks?.();
    return recorded;
  } catch (error) {
    if (error instanceof NoticeTooEarly) throw error;
    // Effects that could not be written must not lose the report: keep it alone, with why.
    const why = `not applied: ${error instanceof Error ? error.message : String(error)}`;
    await insertInboundReport(deps.db, { ...base, messageId: null, parsed: { ...understood, returned: reading.returned }, error: why });
    return { id, kind: reading.kind, messageId: null, effect: 'none', error: why };
  }
}

/** What the report does to the message: the effect, and the writes that make it so (run after the report row). */
async function decide(
  tx: Tx, deps: InboundDeps, at: number, reading: InboundReading, message: ReportedMessage | undefined, named: readonly Candidate[],
): Promise<Applied & { write?: () => Promise<void> }> {
  if (!('report' in reading)) return { effect: 'none', error: reading.error };
  if (!message) {
    return { effect: 'none', error: named[0] === undefined ? 'no msgid of this installation in the report' : `unknown message ${named[0].msgid}` };
  }
  const { id: messageId } = message;
  const suppress = (reason: 'bounced' | 'complained') => addSuppression(tx, { accountId: message.accountId, address: message.recipient, reason, messageId, at });

  if (reading.kind === 'arf') {
    const report = reading.report;
    if (!isComplaint(report)) return { effect: 'none', error: null };
    if (NEVER_LEFT.has(message.status)) return { effect: 'none', error: `message ${messageId} never left (${message.status})` };
    const duplicate = await hasMessageEvent(tx, messageId, 'complained');
    return {
      effect: duplicate ? 'duplicate' : 'complained', error: null,
      write: async () => {
        await suppress('complained');
        if (!duplicate) {
          await recordEvent(tx, { messageId, type: 'complained', eventId: deps.newId(), at, data: complaintDetails(report) });
          await leaveEveryList(deps, tx, messageId, at);
          await recordConsentChange(tx, deps, {
            accountId: message.accountId, channel: 'email', address: message.recipient.toLowerCase(), sender: '', change: 'opted_out', source: 'complaint', at,
            proof: { message_id: messageId, ...complaintDetails(report) },
          });
        }
      },
    };
  }

  const recipient = recipientFor(reading.report, message.recipient);
  if (recipient === undefined) return { effect: 'none', error: null };
  if (SUCCESS_ACTIONS.includes(recipient.action)) return confirmDelivery(tx, deps, at, reading.report, recipient, message);
  const details = { ...dsnBounce(recipient), reporting_mta: reading.report.reportingMta };
  // Only a message that left can bounce or be delayed: sending, sent or delivered (or bounced already).
  const duplicate = recipient.action === 'failed' && message.status === 'bounced';
  if (!duplicate && !canTransition(message.status, 'bounced')) {
    return { effect: 'none', error: `message ${messageId} is ${message.status}: the report does not apply` };
  }
  if (recipient.action === 'failed') {
    return {
      effect: duplicate ? 'duplicate' : 'bounced', error: null,
      write: async () => {
        if (details.bounce_type === 'hard') await suppress('bounced');
        if (!duplicate) await recordEvent(tx, { messageId, status: 'bounced', eventId: deps.newId(), at, data: details });
      },
    };
  }
  // Delayed: the remote side is still retrying. Published as email.deferred; the status stays.
  const { bounce_type: _type, ...delay } = details;
  return { effect: 'deferred', error: null, write: () => recordEvent(tx, { messageId, type: 'deferred', eventId: deps.newId(), at, data: delay }).then(() => {}) };
}

/** A success notice: the message is delivered, with the notice's words on the event. */
function confirmDelivery(
  tx: Tx, deps: InboundDeps, at: number, report: DeliveryStatus, recipient: RecipientStatus, message: ReportedMessage,
): Applied & { write?: () => Promise<void> } {
  // Another address's delivery (an alias the relay expanded) says nothing about this recipient's.
  if (!namesRecipient(recipient, message.recipient)) {
    return { effect: 'none', error: `the notice is about ${recipient.finalRecipient}, not the message's recipient` };
  }
  if (message.status === 'delivered') return { effect: 'duplicate', error: null };
  if (message.status === 'sending') throw new NoticeTooEarly(message.id);
  if (!canTransition(message.status, 'delivered')) {
    return { effect: 'none', error: `message ${message.id} is ${message.status}: the report does not apply` };
  }
  const data = { ...dsnDelivery(recipient), reporting_mta: report.reportingMta };
  return {
    effect: 'delivered', error: null,
    write: () => recordEvent(tx, { messageId: message.id, status: 'delivered', eventId: deps.newId(), at, data }).then(() => {}),
  };
}
