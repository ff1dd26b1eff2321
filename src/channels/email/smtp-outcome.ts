import type { Outcome } from '../channel.ts';
import { replyBounce } from '../../domain/dsn.ts';

// What nodemailer reports after one SMTP attempt, turned into an Outcome by two tables:
// replies by the stage of the command the peer answered, errors without a reply by
// their code. The peer's words always travel up unchanged.

export type Verdict =
  | { readonly kind: 'deferred' }
  | { readonly kind: 'failed'; readonly leftTheHouse: boolean; readonly bounced: boolean };

const DEFERRED = { kind: 'deferred' } as const;
/** The recipient's side refused this message for good. */
const BOUNCED = { kind: 'failed', leftTheHouse: true, bounced: true } as const;
/** The peer refused our envelope sender for good: it saw the message, but not a verdict on the recipient. */
const SENDER_REFUSED = { kind: 'failed', leftTheHouse: true, bounced: false } as const;
/** The client refused to send it (an address or a size no peer will take): nobody saw it, refunded. */
const UNSENDABLE = { kind: 'failed', leftTheHouse: false, bounced: false } as const;

export type SmtpStage = 'session' | 'sender' | 'recipient' | 'content';
export type ReplyClass = 'transient' | 'permanent';

/** Where each SMTP command nodemailer names (`err.command`) belongs. AUTH commands are `AUTH <method>`. */
export const COMMAND_STAGES: Readonly<Record<string, SmtpStage>> = {
  CONN: 'session', EHLO: 'session', HELO: 'session', LHLO: 'session', STARTTLS: 'session', RSET: 'session',
  'MAIL FROM': 'sender', 'RCPT TO': 'recipient', DATA: 'content',
};

/**
 * Replies. A refusal before the transaction (greeting, EHLO, STARTTLS, AUTH) is about
 * the session between herald and the peer — credentials, TLS, our IP's reputation — and
 * not about the message, so even a 5xx there is deferred: the operator can fix it, and
 * past the retry horizon the message fails unsent and is refunded. A 5xx to RCPT or DATA
 * is the recipient's side refusing the message: a bounce.
 */
export const REPLY_VERDICTS = {
  session: { transient: DEFERRED, permanent: DEFERRED },
  sender: { transient: DEFERRED, permanent: SENDER_REFUSED },
  recipient: { transient: DEFERRED, permanent: BOUNCED },
  content: { transient: DEFERRED, permanent: BOUNCED },
} as const satisfies Record<SmtpStage, Record<ReplyClass, Verdict>>;

/**
 * Errors that carry no SMTP reply, by nodemailer's code or the system code under it
 * (`originalCode`). Connection trouble is transient; a code not listed here is too, since
 * retrying an unknown failure until the horizon loses nothing.
 */
export const NO_REPLY_VERDICTS = {
  ECONNREFUSED: DEFERRED, ECONNRESET: DEFERRED, ETIMEDOUT: DEFERRED, EHOSTUNREACH: DEFERRED, ENETUNREACH: DEFERRED,
  EPIPE: DEFERRED, EAI_AGAIN: DEFERRED, ENOTFOUND: DEFERRED,
  ECONNECTION: DEFERRED, ESOCKET: DEFERRED, EDNS: DEFERRED, ETLS: DEFERRED, EPROXY: DEFERRED,
  // ETIMEDOUT covers the greeting and the TLS upgrade too (timeoutType says which).
  EAUTH: DEFERRED, EABORT: DEFERRED, ESTREAM: DEFERRED,
  // Said by nodemailer before anything was sent: an address it will not put in an
  // envelope, a message over the peer's advertised SIZE, too many recipients.
  EENVELOPE: UNSENDABLE, EMESSAGE: UNSENDABLE, EMAXRECIPIENTS: UNSENDABLE,
} as const satisfies Record<string, Verdict>;

/** The parts of a nodemailer error this module reads. */
export interface SmtpErrorFields {
  readonly code?: string | undefined;
  readonly originalCode?: string | undefined;
  readonly command?: string | undefined;
  readonly response?: string | undefined;
  readonly responseCode?: number | undefined;
  readonly message?: string | undefined;
}

/** RFC 5321: 5yz is permanent, except 503 (bad sequence: the session's state, not the message); anything else retries. */
export function replyClass(responseCode: number): ReplyClass {
  return responseCode >= 500 && responseCode <= 599 && responseCode !== 503 ? 'permanent' : 'transient';
}

export function stageOf(command: string | undefined): SmtpStage {
  if (command === undefined) return 'session';
  if (command.startsWith('AUTH')) return 'session';
  return COMMAND_STAGES[command] ?? 'session';
}

export function fieldsOf(error: unknown): SmtpErrorFields {
  if (typeof error !== 'object' || error === null) return { message: String(error) };
  const e = error as Record<string, unknown>;
  const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  return {
    code: text(e.code),
    originalCode: text(e.originalCode),
    command: text(e.command),
    response: text(e.response),
    responseCode: typeof e.responseCode === 'number' ? e.responseCode : undefined,
    message: text(e.message),
  };
}

/** The verdict on a failed attempt, and whether the peer replied at all. */
export function classifySmtpError(error: unknown): { verdict: Verdict; stage: SmtpStage | 'no reply' } {
  const fields = fieldsOf(error);
  if (fields.responseCode !== undefined && fields.response !== undefined) {
    const stage = stageOf(fields.command);
    return { verdict: REPLY_VERDICTS[stage][replyClass(fields.responseCode)], stage };
  }
  const table: Readonly<Record<string, Verdict>> = NO_REPLY_VERDICTS;
  const verdict = (fields.originalCode !== undefined ? table[fields.originalCode] : undefined)
    ?? (fields.code !== undefined ? table[fields.code] : undefined)
    ?? DEFERRED;
  return { verdict, stage: 'no reply' };
}

/** The peer's words when it replied, else what went wrong, with the codes first. */
export function describeSmtpError(error: unknown): string {
  const { code, originalCode, response, responseCode, message } = fieldsOf(error);
  if (response !== undefined && responseCode !== undefined) return response;
  const codes = [code, originalCode].filter((c, i, all): c is string => c !== undefined && all.indexOf(c) === i);
  return `${codes.length > 0 ? `${codes.join(' ')}: ` : ''}${message ?? 'unknown error'}`;
}

/**
 * The outcome of an attempt that nodemailer failed (the error it rejected with). A
 * bounce carries its details (domain/dsn.ts `bounceTypeOf`): hard unless the reply says
 * mailbox full, message too large or a policy block, which are soft.
 */
export function smtpErrorOutcome(error: unknown, peer: string): Outcome {
  const { verdict } = classifySmtpError(error);
  const response = describeSmtpError(error);
  if (verdict.kind === 'deferred') return { kind: 'deferred', peer, response };
  if (!verdict.bounced) return { kind: 'failed', peer, response, leftTheHouse: verdict.leftTheHouse };
  const details = replyBounce(response, fieldsOf(error).responseCode ?? 550);
  return { kind: 'failed', peer, response, leftTheHouse: verdict.leftTheHouse, bounced: true, details };
}

/** What nodemailer resolves with after the peer answered DATA with 2xx. */
export interface SmtpSentInfo {
  readonly accepted: readonly (string | { address: string })[];
  readonly rejected: readonly (string | { address: string })[];
  readonly rejectedErrors?: readonly unknown[] | undefined;
  readonly response: string;
}

/**
 * The outcome of an attempt nodemailer reports as sent. Each message has exactly one
 * envelope recipient; nodemailer fails the send when every recipient was refused, but a
 * refusal listed beside an accepted DATA is still the recipient's. `delivered` says the
 * peer is the recipient's own MX rather than a relay.
 */
export function smtpSentOutcome(info: SmtpSentInfo, peer: string, delivered: boolean): Outcome {
  const [refusal] = info.rejectedErrors ?? [];
  if (info.accepted.length === 0 && refusal !== undefined) return smtpErrorOutcome(refusal, peer);
  return { kind: 'accepted', peer, response: info.response, ...(delivered ? { delivered: true } : {}) };
}
