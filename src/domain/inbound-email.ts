// An email that arrived at a receiving domain, as inbound/email-reader.ts read it
// (mailparser, mailauth), and the bounds on what of it is kept (docs/inbound-email.md).

/** Recipients one SMTP transaction may name: RFC 5321 §4.5.3.1.8's minimum; more get 452. */
export const MAX_INBOUND_RECIPIENTS = 100;
/** Attachments one message may carry; a message with more is refused (552 5.3.4). */
export const MAX_INBOUND_ATTACHMENTS = 100;
/** Header lines kept in `content.headers`, in order; the rest are in the raw message. */
export const MAX_KEPT_HEADERS = 100;
/** Characters kept of one header's value. */
export const MAX_HEADER_VALUE = 2_000;
/** Message-IDs of In-Reply-To and References looked up for the message answered. */
export const MAX_REFERENCES_READ = 20;
/** The raw message, kept as an attachment of the inbound message (GET /v1/inbound/:id/raw). */
export const RAW_MESSAGE_FILENAME = 'message.eml';
export const RAW_MESSAGE_TYPE = 'message/rfc822';

/** What SPF, DKIM and DMARC said, as RFC 8601 result words (`pass`, `fail`, `none`, `softfail`, `temperror`…). */
export interface EmailAuthentication {
  readonly spf: string;
  readonly dkim: string;
  readonly dmarc: string;
}

export interface EmailHeader {
  readonly name: string;
  readonly value: string;
}

export interface EmailAttachment {
  readonly filename: string | null;
  readonly contentType: string;
  readonly content: Buffer;
}

export interface ReadEmail {
  /** The header From's address, lower-cased; null when it has none. */
  readonly from: string | null;
  readonly cc: readonly string[];
  readonly subject: string | null;
  readonly text: string | null;
  readonly html: string | null;
  /** The Message-ID as written, angle brackets included; null when it has none. */
  readonly messageId: string | null;
  /** In-Reply-To, then References from the newest: the messages this one answers. */
  readonly answers: readonly string[];
  readonly headers: readonly EmailHeader[];
  readonly attachments: readonly EmailAttachment[];
  readonly authentication: EmailAuthentication;
}
