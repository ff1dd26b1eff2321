import type { Logger } from 'pino';
import type { AppDeps } from '../app/deps.ts';
import { receiveEmail, recipientVerdict, type RecipientVerdict } from '../app/receive-email.ts';
import { admitInbound } from '../app/receive-inbound.ts';
import { readEmail, TooManyAttachments, type DNSResolver, type SmtpClient } from './email-reader.ts';

// The listener's side of receiving domains: what RCPT TO answers, and what DATA answers
// once the message is read (inbound/email-reader.ts) and handed on (app/receive-email.ts).
// Replies carry their RFC 3463 code in the text (smtp-enhanced-codes.ts keeps it).

/** An SMTP refusal: basic code and text (which starts with its enhanced code). */
export interface SmtpRefusal {
  readonly code: number;
  readonly text: string;
}

export interface ReceivingMail {
  verdict(address: string): Promise<RecipientVerdict>;
  /** Reads and keeps one message; undefined is 250, a refusal is answered as it says. */
  receive(client: SmtpClient, recipients: readonly string[], raw: Buffer): Promise<SmtpRefusal | undefined>;
}

export function emailReceiver(deps: AppDeps, resolver: DNSResolver, mta: string, logger: Logger): ReceivingMail {
  const log = logger.child({ component: 'inbound-email' });
  return {
    verdict: (address) => recipientVerdict(deps, address),
    async receive(client, recipients, raw) {
      // Counted by the envelope sender before any reading: a flood costs a counter, and the client sends it again later.
      if (!(await admitInbound(deps, 'email', client.mailFrom.toLowerCase()))) return { code: 451, text: '4.7.1 Too many messages from this sender, try again later' };
      let email;
      try {
        email = await readEmail(raw, client, resolver, mta);
      } catch (error) {
        if (error instanceof TooManyAttachments) return { code: 552, text: `5.3.4 Message refused: ${error.message}` };
        // What mailparser cannot read is the sender's fault, and it will not read better tomorrow.
        log.info({ err: error, mailFrom: client.mailFrom }, 'unreadable email to a receiving domain refused');
        return { code: 554, text: '5.6.0 Message refused: it could not be read' };
      }
      const received = await receiveEmail(deps, { mailFrom: client.mailFrom, recipients }, raw, email);
      if (received.ok) return undefined;
      // A forward the account cannot pay for now: the sender tries again later, perhaps after a top-up.
      if (received.rejection.code === 'noMessagesLeft') return { code: 452, text: '4.2.2 The recipient cannot take mail now, try again later' };
      return { code: 550, text: '5.7.1 The recipient does not take mail' };
    },
  };
}
