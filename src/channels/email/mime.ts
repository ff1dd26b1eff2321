import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import type Mail from 'nodemailer/lib/mailer/index.js';
import { convert as htmlToText } from 'html-to-text';
import type { EmailPayload, Outbound } from '../../domain/outbound.ts';

export interface ResolvedAttachment {
  readonly filename: string;
  readonly contentType: string;
  readonly content: Buffer;
}

/**
 * Renders the RFC 5322 message for one recipient. Every recipient gets its own copy
 * so its Message-ID carries its own msgid; To and Cc headers are the same in every
 * copy and Bcc never appears (nodemailer drops it from the rendered headers).
 * Names and subjects are encoded by nodemailer (RFC 2047) after validation replaced
 * CR/LF, so no value can start a header line of its own.
 */
export async function renderMime(
  message: Outbound<EmailPayload>,
  attachments: readonly ResolvedAttachment[],
  messageIdHost: string,
): Promise<Buffer> {
  const { payload } = message;
  const options: Mail.Options = {
    from: { name: payload.from.name, address: payload.from.email },
    replyTo: { name: payload.replyTo.name, address: payload.replyTo.email },
    to: [...payload.to],
    cc: payload.cc.length > 0 ? [...payload.cc] : undefined,
    subject: payload.subject,
    messageId: `<${message.msgid}@${messageIdHost}>`,
    html: payload.html ?? undefined,
    // A text alternative for every HTML message: spam filters and text-only clients expect one.
    text: payload.text ?? (payload.html !== null ? htmlToText(payload.html, { wordwrap: 78 }) : undefined),
    attachments: attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content })),
    envelope: { from: payload.from.email, to: [message.recipient] },
  };
  return new MailComposer(options).compile().build();
}
