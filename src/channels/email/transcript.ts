import { createHash } from 'node:crypto';
import nodemailer, { type SendMailOptions, type SMTPSentMessageInfo, type SMTPTransportOptions } from 'nodemailer';
import type SMTPConnection from 'nodemailer/lib/smtp-connection/index.js';
import type { DeliveryEvidence } from '../../domain/certificate.ts';
import type { EmailPayload, Outbound } from '../../domain/outbound.ts';
import type { Outcome } from '../channel.ts';
import { renderMime } from './mime.ts';

// Certified delivery on the wire: the message is rendered once to bytes (DKIM
// signature included) and those bytes are sent raw, so the hash in the receipt covers
// exactly what went out; the SMTP session is a connection of its own (never a pooled
// one), so its transcript is this message's and nobody else's.

/** A certified message, rendered: the bytes that go on the wire and what the receipt says about them. */
export interface CertifiedMessage {
  readonly raw: Buffer;
  readonly sha256: string;
  readonly envelope: SendMailOptions['envelope'];
  /** The notices asked of a relay (delivery-notice-request.ts); none for an MX. */
  readonly dsn?: SMTPConnection.DSNOptions;
  readonly from: string;
  readonly recipient: string;
  readonly subject: string;
}

export async function certifiedMessage(message: Outbound<EmailPayload>, mail: SendMailOptions, dsn?: SMTPConnection.DSNOptions): Promise<CertifiedMessage> {
  const raw = await renderMime(mail);
  return {
    raw,
    sha256: createHash('sha256').update(raw).digest('hex'),
    envelope: mail.envelope,
    ...(dsn === undefined ? {} : { dsn }),
    from: message.payload.from.email,
    recipient: message.recipient,
    subject: message.payload.subject,
  };
}

/** Where a certified message goes: the connection options of a single, unpooled SMTP session and what to call the peer. */
export interface CertifiedSession {
  readonly options: SMTPTransportOptions;
  readonly delivery: 'mx' | 'relay';
  /** The MX host name, or the relay's host as configured. */
  readonly host: string;
  readonly clock: () => number;
  /** Applied to every transcript line (the relay's credentials, should a peer echo them). */
  readonly mask?: (text: string) => string;
}

/**
 * Sends a certified message over a connection of its own, recording the session. Rejects
 * as nodemailer's sendMail does (the caller's error table applies unchanged); resolves
 * with nodemailer's info and the evidence of acceptance.
 */
export async function sendCertified(
  session: CertifiedSession,
  message: CertifiedMessage,
  signal: AbortSignal,
): Promise<{ info: SMTPSentMessageInfo; evidence: DeliveryEvidence }> {
  const mask = session.mask ?? ((text: string) => text);
  const recorder = sessionRecorder(session.clock, mask);
  const mailer = nodemailer.createTransport({ ...session.options, pool: false, logger: recorder.logger, transactionLog: true });
  mailer.on('error', () => {});
  try {
    const info = await mailer.sendMail({ envelope: message.envelope, raw: message.raw, signal, ...(message.dsn === undefined ? {} : { dsn: message.dsn }) });
    const recorded = recorder.finish();
    return {
      info,
      evidence: {
        delivery: session.delivery,
        from: message.from,
        recipient: message.recipient,
        subject: message.subject,
        mime: message.raw,
        sha256: message.sha256,
        host: session.host,
        ip: recorded.remoteAddress,
        transcript: recorded.lines,
        smtpResponse: mask(info.response),
        queueId: queueIdOf(mask(info.response)),
        connectedAt: recorded.connectedAt,
        acceptedAt: recorded.lastReplyAt ?? session.clock(),
      },
    };
  } finally {
    mailer.close();
  }
}

/**
 * The capture transport's evidence: no network, no peer. It certifies only what herald
 * composed (the bytes and their hash), never that anybody received them.
 */
export function captureEvidence(message: CertifiedMessage, at: number): DeliveryEvidence {
  return {
    delivery: 'capture', from: message.from, recipient: message.recipient, subject: message.subject,
    mime: message.raw, sha256: message.sha256, host: null, ip: null, transcript: [],
    smtpResponse: null, queueId: null, connectedAt: null, acceptedAt: at,
  };
}

/** The outcome with the evidence attached when it is an acceptance (a refused recipient gets none). */
export function withEvidence(outcome: Outcome, evidence: DeliveryEvidence): Outcome {
  return outcome.kind === 'accepted' ? { ...outcome, evidence } : outcome;
}

/**
 * The receiving server's queue id in its 250 reply to DATA, when the reply is in a form
 * known to carry one; null otherwise (smtp-server's default `250 OK: message queued`).
 */
export function queueIdOf(reply: string): string | null {
  for (const pattern of QUEUE_ID_PATTERNS) {
    const match = pattern.exec(reply.trim());
    if (match?.[1] !== undefined) return match[1];
  }
  return null;
}

const QUEUE_ID_PATTERNS: readonly RegExp[] = [
  // Postfix: 250 2.0.0 Ok: queued as 4F9A61C0123
  /queued as ([A-Za-z0-9._-]+)/i,
  // Exim: 250 OK id=1rAbCd-0001Ab-2X
  /\bid=([A-Za-z0-9._-]+)/i,
  // Gmail: 250 2.0.0 OK  1719835200 d9443c01a7336-1f6a3c1a2b3si123456 - gsmtp
  /^250 2\.0\.0 OK\s+\d+\s+(\S+) - gsmtp$/i,
  // Sendmail: 250 2.0.0 46TC0abc012345 Message accepted for delivery
  /^250 2\.0\.0 (\S+) Message accepted for delivery/i,
  // Haraka: 250 Message Queued (8A4B2C1D-...)
  /Message Queued \(([^)\s]+)\)/i,
];

interface RecordedSession {
  readonly lines: string[];
  readonly remoteAddress: string | null;
  readonly connectedAt: number | null;
  readonly lastReplyAt: number | null;
}

type LogEntry = { readonly tnx?: unknown; readonly remoteAddress?: unknown; readonly remotePort?: unknown; readonly inByteCount?: unknown };

/**
 * A bunyan-style logger for nodemailer (with `transactionLog: true` it gets every client
 * command and server reply; never the message itself) that keeps the session as
 * transcript lines. AUTH exchanges are redacted: the command keeps its mechanism, and
 * every client line answering a 334 challenge becomes `***`, whatever nodemailer's own
 * masking left in it (AUTH LOGIN sends the user name in plain base64).
 */
function sessionRecorder(clock: () => number, mask: (text: string) => string) {
  const lines: string[] = [];
  let remoteAddress: string | null = null;
  let connectedAt: number | null = null;
  let lastReplyAt: number | null = null;
  let inAuth = false;

  const record = (entry: unknown, format: unknown): void => {
    const data = (typeof entry === 'object' && entry !== null ? entry : {}) as LogEntry;
    const message = typeof format === 'string' ? format : '';
    switch (data.tnx) {
      case 'client': {
        if (/^AUTH\s/i.test(message)) {
          inAuth = true;
          const [verb, mechanism, ...initialResponse] = message.trim().split(/\s+/);
          lines.push(`C: ${verb} ${mechanism ?? ''}${initialResponse.length > 0 ? ' ***' : ''}`);
        } else {
          lines.push(`C: ${inAuth ? '***' : mask(message)}`);
        }
        return;
      }
      case 'server': {
        lastReplyAt = clock();
        // An AUTH exchange goes on while the server keeps challenging (334).
        if (inAuth && !message.startsWith('334')) inAuth = false;
        for (const line of message.split(/\r?\n/)) lines.push(`S: ${mask(line)}`);
        return;
      }
      case 'network':
        if (typeof data.remoteAddress === 'string' && connectedAt === null) {
          connectedAt = clock();
          remoteAddress = data.remoteAddress;
          lines.push(`* connected to ${data.remoteAddress}${typeof data.remotePort === 'number' ? ` port ${data.remotePort}` : ''}`);
        }
        return;
      case 'smtp':
        if (message.startsWith('Connection upgraded with STARTTLS')) lines.push('* TLS started (STARTTLS)');
        return;
      case 'message':
        // The end of DATA: the bytes themselves are the .eml, their hash is in the receipt.
        if (typeof data.inByteCount === 'number') lines.push(`C: [message, ${data.inByteCount} bytes]`, 'C: .');
    }
  };
  const levels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
  const logger = Object.fromEntries(levels.map((level) => [level, record]));
  return {
    logger,
    finish: (): RecordedSession => ({ lines: [...lines], remoteAddress, connectedAt, lastReplyAt }),
  };
}
