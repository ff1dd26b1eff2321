import type { NamedAddress } from './email-request.ts';
import type { SendOptionsRequest } from './send-options.ts';

// One message taken by SMTP submission (src/submission/), read into what the send use case
// needs (app/submit-email.ts): the envelope's recipients with their roles, the headers the
// message views show, herald's own X-Herald-* options, and the bytes that go out.

export type RecipientRole = 'to' | 'cc' | 'bcc';

export interface SubmittedEmail {
  /** The envelope sender (MAIL FROM), checked against the verified sender domains at MAIL FROM. */
  readonly envelopeFrom: string;
  /** One message each, in RCPT order: `to` or `cc` when the header names it, else `bcc`. */
  readonly recipients: readonly { readonly email: string; readonly role: RecipientRole }[];
  /** The header From (its domain must be verified too). */
  readonly from: NamedAddress;
  /** Reply-To, or From when there is none. */
  readonly replyTo: NamedAddress;
  readonly subject: string;
  /** A part is text/html: tracking may apply (as the API's, only HTML is tracked). */
  readonly hasHtml: boolean;
  /** The To and Cc headers' addresses, as every copy shows them. */
  readonly to: readonly string[];
  readonly cc: readonly string[];
  /** X-Herald-Metadata, X-Herald-Track and X-Herald-Certified, as the API's `options` would give them. */
  readonly options: SendOptionsRequest;
  /** X-Herald-Idempotency-Key, checked (1–255 printable characters); null without one. */
  readonly idempotencyKey: string | null;
  /** The message as it is kept and sent: Bcc and X-Herald-* removed, lines CRLF, a Date added when there was none. */
  readonly mime: Buffer;
}
