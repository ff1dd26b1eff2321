import type { AttachmentSpec, NamedAddress } from './email-request.ts';

// What an accepted request leaves for delivery: the content its messages share,
// stored once per request (`sends.payload`), plus the per-recipient message row.

export interface EmailPayload {
  readonly from: NamedAddress;
  readonly replyTo: NamedAddress;
  readonly subject: string;
  /** At least one of html and text is set, but in an SMTP submission's payload: its bodies are in `submitted` (app/email-bodies.ts reads them). */
  readonly html: string | null;
  readonly text: string | null;
  readonly to: readonly string[];
  readonly cc: readonly string[];
  readonly attachments: readonly AttachmentSpec[];
  /** Open pixel and link rewriting; absent in payloads stored before tracking existed (none). */
  readonly tracking?: { readonly opens: boolean; readonly clicks: boolean };
  /** Keep signed evidence of delivery; absent in older payloads (false). */
  readonly certified?: boolean;
  /**
   * A double opt-in confirmation email (app/subscribe-contacts.ts, never a request's): its
   * bodies hold CONFIRM_LINK_PLACEHOLDER where the link's token goes, and the token is
   * signed only as the email is handed to a transport that sends it (channels/email/compose.ts).
   */
  readonly confirmation?: { readonly contactId: string; readonly listId: string };
  /**
   * An SMTP submission's message as its client wrote it, base64 (src/submission/): Bcc and
   * X-Herald-* removed, lines CRLF, a Date added when it had none. It is what goes out
   * (channels/email/submitted-mime.ts); from, replyTo, subject, to and cc are read from its
   * headers, and html and text are null (the views parse the MIME: app/email-bodies.ts).
   */
  readonly submitted?: { readonly mime: string };
}

/**
 * What stands for the token of a confirmation link (`/confirm/<token>`) in everything an
 * account's members can read (the stored content, the preview, a captured copy): only
 * the copy sent to the recipient carries the working link, so no member can confirm a
 * subscription for someone else. `/confirm/` of it is "This link is not valid".
 */
export const CONFIRM_LINK_PLACEHOLDER = 'link-sent-to-the-recipient-only';

export interface SmsPayload {
  /** GSM 03.38 text after transliteration. */
  readonly text: string;
  readonly segments: readonly string[];
  /** The sender (source address): the account's sender the send named, or its default; absent: the transport's own (`?from=`). */
  readonly from?: string;
}

/** An approved template, sendable at any time. */
export interface WhatsappTemplatePayload {
  /** Absent in payloads stored before session messages existed: those are templates. */
  readonly kind?: 'template';
  readonly templateName: string;
  readonly language: string;
  readonly params: readonly string[];
  /** The template body with its parameters filled in, for the message view. */
  readonly renderedBody: string;
}

/** Free text, sendable only inside the recipient's 24-hour customer-service window. */
export interface WhatsappTextPayload {
  readonly kind: 'text';
  readonly text: string;
}

export type WhatsappPayload = WhatsappTemplatePayload | WhatsappTextPayload;

/** One message as a transport sees it: who, which msgid, and the shared content. */
export interface Outbound<P> {
  readonly msgid: string;
  readonly accountId: string;
  readonly attempt: number;
  readonly recipient: string;
  readonly payload: P;
}
