import type { Channel } from './account.ts';
import type { JsonObject } from './json-object.ts';

// What a person sent to an account, on any channel: the shape every door (the SMPP
// session, the Cloud API webhook, the SMTP listener, the sandbox) hands to
// app/receive-inbound.ts, and the `data` of `*.received` webhooks and GET /v1/inbound.

/** A message as it arrived, before it is routed and stored. */
export interface ArrivingMessage {
  readonly channel: Channel;
  /** The person: `+` and digits for SMS and WhatsApp, a lower-cased address for email. */
  readonly from: string;
  /** Where it was written to: the SMS sender (number, short code), the WhatsApp phone number id, the email address. */
  readonly to: string;
  /** The message's text (for email, the plain-text body); null when it has none (an image, a reaction). */
  readonly text: string | null;
  /** When the peer says it was sent or received (epoch ms); never later than herald's clock. */
  readonly receivedAt: number;
  /** The peer's id for it (a wamid, a Message-ID): a resend with the same id is stored once. */
  readonly providerRef?: string | undefined;
  /** The channel's own fields, posted as they are next to the common ones (type, media, subject, authentication…). */
  readonly content?: JsonObject | undefined;
  /** The msgid of herald's message this one answers (email In-Reply-To / References, WhatsApp context). */
  readonly replyTo?: string | undefined;
  /** Files that came with it: stored now (bytes), or fetched later from the peer (mediaRef). */
  readonly attachments?: readonly ArrivingAttachment[] | undefined;
  /** Where it was routed when the door knows already (a receiving domain's owner, the sandbox's key). */
  readonly accountId?: string | undefined;
  /** Sent with a test key's simulator (POST /v1/sandbox/inbound): posted as `test: true`. */
  readonly test?: boolean | undefined;
}

export interface ArrivingAttachment {
  readonly filename: string | null;
  readonly contentType: string | null;
  /** The bytes, when the door has them. */
  readonly content?: Buffer | undefined;
  /** The peer's media id to fetch them with (WhatsApp), when it has not. */
  readonly mediaRef?: string | undefined;
}

/** The keywords a message can be (domain/sms-keywords.ts decides). */
export const KEYWORD_KINDS = ['stop', 'start', 'help'] as const;
export type KeywordKind = (typeof KEYWORD_KINDS)[number];

/** An inbound message as stored. */
export interface InboundMessage {
  readonly id: string;
  readonly accountId: string | null;
  readonly channel: Channel;
  readonly from: string;
  readonly to: string;
  readonly text: string | null;
  readonly content: JsonObject | null;
  readonly keyword: KeywordKind | null;
  readonly replyTo: string | null;
  readonly receivedAt: number;
  readonly attachments: readonly InboundAttachmentSummary[];
  readonly test?: boolean;
}

export interface InboundAttachmentSummary {
  readonly id: string;
  readonly filename: string | null;
  readonly contentType: string | null;
  readonly size: number;
  readonly state: 'pending' | 'stored' | 'failed';
}

/**
 * The `data` of an `sms.received`, `whatsapp.received` or `email.received` webhook,
 * and an item of GET /v1/inbound: the common fields, then the channel's own (which
 * never replace a common one). `attachments` carry the URL the account fetches them at.
 */
export function inboundData(message: InboundMessage, publicUrl: string): Record<string, unknown> {
  const data: Record<string, unknown> = { ...(message.content ?? {}) };
  Object.assign(data, {
    id: message.id,
    channel: message.channel,
    from: message.from,
    to: message.to,
    text: message.text,
    received_at: new Date(message.receivedAt).toISOString(),
  });
  if (message.accountId !== null) data['account'] = message.accountId;
  if (message.keyword !== null) data['keyword'] = message.keyword;
  if (message.replyTo !== null) data['in_reply_to'] = message.replyTo;
  if (message.attachments.length > 0) {
    data['attachments'] = message.attachments.map((attachment) => ({
      id: attachment.id,
      filename: attachment.filename,
      content_type: attachment.contentType,
      size: attachment.size,
      state: attachment.state,
      url: `${publicUrl.replace(/\/$/, '')}/v1/inbound/${message.id}/attachments/${attachment.id}`,
    }));
  }
  if (message.test === true) data['test'] = true;
  return data;
}
