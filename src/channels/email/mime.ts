import nodemailer, { type SendMailOptions } from 'nodemailer';

export interface ResolvedAttachment {
  readonly filename: string;
  readonly contentType: string;
  readonly content: Buffer;
}

/**
 * Options every nodemailer transport of herald is made with. Content is always given
 * as strings and Buffers; nothing a message carries may make nodemailer read a file
 * or fetch a URL on its own (URL attachments go through guarded-fetch beforehand).
 */
export const CONTENT_ACCESS = { disableFileAccess: true, disableUrlAccess: true } as const;

// nodemailer's stream transport runs the same pipeline as its SMTP transports (compose,
// List headers, DKIM signing) and stops before the wire. CRLF line ends, as SMTP's DATA
// sends them.
const renderer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows', ...CONTENT_ACCESS });

/** The RFC 5322 bytes nodemailer would send for these message options (DKIM signature included). */
export async function renderMime(mail: SendMailOptions): Promise<Buffer> {
  const info = await renderer.sendMail(mail);
  if (!Buffer.isBuffer(info.message)) throw new Error('the stream transport returned a stream despite buffer: true');
  return info.message;
}
