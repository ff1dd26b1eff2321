import type { SendMailOptions } from 'nodemailer';
import { CONFIRM_LINK_PLACEHOLDER, type EmailPayload, type Outbound } from '../../domain/outbound.ts';
import { textFromHtml } from '../../domain/text-from-html.ts';
import type { TrackingTokens } from '../../domain/tracking-token.ts';
import type { VerpTags } from '../../domain/verp-address.ts';
import type { Outcome } from '../channel.ts';
import { dkimSigningOptions, type DkimKeyLookup } from './dkim.ts';
import { bytesWithCrlfBreaks, isSentUnencoded, withCrlfBreaks, withoutLineBreaks } from '../../domain/line-breaks.ts';
import type { ResolvedAttachment } from './mime.ts';
import { addTracking } from './tracking.ts';
import { submittedCopy } from './submitted-mime.ts';

/** What every email transport needs to compose the same message. */
export interface ComposeSettings {
  /** Right-hand side of Message-ID: `<msgid@messageIdHost>`. */
  readonly messageIdHost: string;
  /** Domain of the VERP envelope sender `b+<msgid>-<tag>@<bounceDomain>`. */
  readonly bounceDomain: string;
  /** Tags the VERP envelope sender (domain/verp-address.ts `verpTags` of the installation secret). */
  readonly verp: VerpTags;
  /** Base of the List-Unsubscribe and tracking URLs, without a trailing slash. */
  readonly publicUrl: string;
  /** Signs the unsubscribe and tracking tokens (domain/tracking-token.ts `trackingTokens`). */
  readonly tokens: TrackingTokens;
  /**
   * Signs the token of a confirmation email's link (campaigns/consent-token.ts). Only the
   * transports that send to the recipient get it: without it (the capture transport, whose
   * copy account members read) the link keeps its placeholder.
   */
  readonly confirmationLinks?: ConfirmationLinkSigner;
  /** The sender domains' signing keys; absent: every message unsigned (the SMTP transports require it). */
  readonly dkim?: DkimKeyLookup;
  /** Time of the Date header; default Date.now. */
  readonly clock?: () => number;
}

/** The token of a confirmation link for a contact and list of an account, signed at `now`. */
export type ConfirmationLinkSigner = (claims: { readonly accountId: string; readonly contactId: string; readonly listId: string }, now: number) => Promise<string>;

export type AttachmentResolver = (message: Outbound<EmailPayload>, signal: AbortSignal) => Promise<
  { ok: true; attachments: ResolvedAttachment[] } | { ok: false; reason: string; permanent: boolean }
>;

/** The per-message envelope sender: a bounce to it names the msgid it belongs to, with the tag that proves it is ours. */
export function verpAddress(msgid: string, settings: Pick<ComposeSettings, 'bounceDomain' | 'verp'>): string {
  return settings.verp.address(msgid, settings.bounceDomain);
}

/**
 * The one-click unsubscribe URL (RFC 8058): a signed token naming the message, served
 * by `GET`/`POST /u/:token`. https only, no mailto: form, so nothing comes back by mail.
 */
export async function unsubscribeUrl(settings: Pick<ComposeSettings, 'publicUrl' | 'tokens'>, message: { msgid: string; accountId: string }, now: number): Promise<string> {
  const token = await settings.tokens.sign({ kind: 'unsubscribe', accountId: message.accountId, msgid: message.msgid }, now);
  return `${settings.publicUrl}/u/${token}`;
}

/**
 * The one place an outbound email becomes nodemailer message options, used by the
 * capture transport and both SMTP transports alike, so what is captured is what is sent.
 *
 * - One copy per recipient: the envelope names only `message.recipient`; To and Cc
 *   headers are the same in every copy and Bcc is never a header (no bcc field is set).
 * - Message-ID carries the msgid; the envelope sender is the msgid's tagged VERP address.
 * - Deterministic for a given clock: the Date is the clock's, and the multipart
 *   boundaries derive from the msgid (unguessable before the message was accepted)
 *   rather than from random bytes.
 * - Signed with the sender domain's DKIM key when it has one (see DkimKeyLookup).
 * - Tracked as the payload says (never certified mail): the HTML gets the open pixel
 *   and rewritten links (tracking.ts); the text alternative keeps the original URLs.
 * - Line breaks are CRLF in the bodies and in message/* attachments, and spaces in the
 *   subject, before nodemailer renders anything (domain/line-breaks.ts): the bytes it renders
 *   (capture, certified .eml) are then the bytes its SMTP stream sends, and the DKIM
 *   body hash verifies at the receiver.
 * Names and subjects are encoded by nodemailer (RFC 2047) after validation replaced
 * CR/LF, so no value can start a header line of its own.
 */
export async function composeEmail(
  message: Outbound<EmailPayload>,
  attachments: readonly ResolvedAttachment[],
  settings: ComposeSettings,
): Promise<SendMailOptions> {
  const payload = await withConfirmationLink(message, settings);
  const dkim = settings.dkim === undefined ? undefined : await dkimSigningOptions(settings.dkim, message.accountId, payload.from.email);
  const now = (settings.clock ?? Date.now)();
  const tracking = payload.certified === true || payload.tracking === undefined ? { opens: false, clicks: false } : payload.tracking;
  if (payload.submitted !== undefined) {
    // An SMTP submission's message: the client's bytes, with this copy's own headers (submitted-mime.ts).
    const target = { publicUrl: settings.publicUrl, tokens: settings.tokens, accountId: message.accountId, msgid: message.msgid, now };
    const raw = await submittedCopy(Buffer.from(payload.submitted.mime, 'base64'), {
      messageId: `<${message.msgid}@${settings.messageIdHost}>`,
      unsubscribeUrl: await unsubscribeUrl(settings, message, now),
      ...(tracking.opens || tracking.clicks ? { html: (html: string) => addTracking(html, tracking, target) } : {}),
    });
    return { raw, envelope: { from: verpAddress(message.msgid, settings), to: [message.recipient] }, ...(dkim === undefined ? {} : { dkim }) };
  }
  const html = payload.html === null
    ? undefined
    : withCrlfBreaks(await addTracking(payload.html, tracking, { publicUrl: settings.publicUrl, tokens: settings.tokens, accountId: message.accountId, msgid: message.msgid, now }));
  // A text alternative for every HTML message: spam filters and text-only clients expect one.
  const text = payload.text ?? (payload.html !== null ? textFromHtml(payload.html) : undefined);
  return {
    from: { name: payload.from.name, address: payload.from.email },
    replyTo: { name: payload.replyTo.name, address: payload.replyTo.email },
    to: [...payload.to],
    cc: payload.cc.length > 0 ? [...payload.cc] : undefined,
    subject: withoutLineBreaks(payload.subject),
    messageId: `<${message.msgid}@${settings.messageIdHost}>`,
    date: new Date(now),
    baseBoundary: message.msgid.replaceAll('-', ''),
    html,
    text: text === undefined ? undefined : withCrlfBreaks(text),
    attachments: attachments.map((a) => ({
      filename: a.filename, contentType: a.contentType, content: isSentUnencoded(a.contentType) ? bytesWithCrlfBreaks(a.content) : a.content,
    })),
    headers: {
      'List-Unsubscribe': `<${await unsubscribeUrl(settings, message, now)}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
    envelope: { from: verpAddress(message.msgid, settings), to: [message.recipient] },
    ...(dkim === undefined ? {} : { dkim }),
  };
}

/**
 * The payload as the recipient gets it: a confirmation email's placeholder replaced by a
 * token signed now, when this transport sends to the recipient (settings.confirmationLinks);
 * every other payload, and every copy kept for members to read, as stored.
 */
async function withConfirmationLink(message: Outbound<EmailPayload>, settings: ComposeSettings): Promise<EmailPayload> {
  const { payload } = message;
  if (payload.confirmation === undefined || settings.confirmationLinks === undefined) return payload;
  const token = await settings.confirmationLinks({ accountId: message.accountId, ...payload.confirmation }, (settings.clock ?? Date.now)());
  const placeholder = `/confirm/${CONFIRM_LINK_PLACEHOLDER}`;
  const link = (body: string | null): string | null => (body === null ? null : body.replaceAll(placeholder, `/confirm/${token}`));
  return { ...payload, html: link(payload.html), text: link(payload.text) };
}

/**
 * Resolves the attachments (URL ones are fetched now) and composes; a failed fetch is
 * the message's outcome, reported as `peer`: permanent → failed and refunded (it never
 * left), transient → deferred.
 */
export async function prepareEmail(
  message: Outbound<EmailPayload>,
  signal: AbortSignal,
  deps: ComposeSettings & { readonly resolveAttachments: AttachmentResolver },
  peer: string,
): Promise<{ ok: true; mail: SendMailOptions } | { ok: false; outcome: Outcome }> {
  const resolved = await deps.resolveAttachments(message, signal);
  if (!resolved.ok) {
    return {
      ok: false,
      outcome: resolved.permanent
        ? { kind: 'failed', peer, response: resolved.reason, leftTheHouse: false }
        : { kind: 'deferred', peer, response: resolved.reason },
    };
  }
  return { ok: true, mail: await composeEmail(message, resolved.attachments, deps) };
}
