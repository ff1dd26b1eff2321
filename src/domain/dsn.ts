// Bounces: RFC 3464 delivery status notifications, RFC 3463 enhanced status codes,
// and the one rule that calls a bounce hard or soft, used for SMTP replies and DSNs
// alike. Pure: the MIME is read by inbound/report-reader.ts (mailparser), which
// hands over the report's field groups already unfolded.

export type BounceType = 'hard' | 'soft';

/** What an `email.bounced` event carries about the refusal, whichever way it came. */
export interface BounceDetails {
  readonly bounce_type: BounceType;
  /** The enhanced status code (`5.1.1`), or null when the reply had none. */
  readonly status_code: string | null;
  /** The refusal in the remote side's own words. */
  readonly diagnostic: string;
  /** `smtp`: refused in the delivery session; `dsn`: reported later by a delivery status notification. */
  readonly source: 'smtp' | 'dsn';
}

/** One group of header-style fields: lower-cased names → value (an array when repeated). */
export type FieldGroup = ReadonlyMap<string, string | readonly string[]>;

export const DSN_ACTIONS = ['failed', 'delayed', 'delivered', 'relayed', 'expanded'] as const;
export type DsnAction = (typeof DSN_ACTIONS)[number];

export interface RecipientStatus {
  /** The address the reporting MTA tried (type prefix `rfc822;` removed). */
  readonly finalRecipient: string;
  readonly originalRecipient: string | null;
  readonly action: DsnAction;
  /** x.y.z */
  readonly status: string;
  /** Diagnostic-Code without its type (`smtp;`), e.g. `550 5.1.1 user unknown`. */
  readonly diagnostic: string | null;
  readonly remoteMta: string | null;
}

export interface DeliveryStatus {
  readonly reportingMta: string | null;
  /** The ENVID the message was sent with (RFC 3461): herald's msgid when it asked for notices. */
  readonly originalEnvelopeId: string | null;
  readonly arrivalDate: string | null;
  readonly recipients: readonly RecipientStatus[];
}

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

// ---- status codes and the hard/soft rule ----

/** `5.01.001` → `5.1.1`; anything that is not class.subject.detail → null. */
function normalizeStatus(text: string): string | null {
  const match = /^([245])\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  return match ? `${match[1]}.${Number(match[2])}.${Number(match[3])}` : null;
}

/** The enhanced status code that follows the basic code of an SMTP reply: `550 5.1.1 …`, `550-5.1.1 …`. */
export function replyStatusCode(reply: string): string | null {
  const match = /^\d{3}[ -]([0-9.]+)(?=\s|$)/.exec(reply.trimStart());
  return match?.[1] === undefined ? null : normalizeStatus(match[1]);
}

/** A DSN `Status:` value, which may carry a comment: `5.0.0 (permanent failure)` → `5.0.0`. */
export function statusFieldCode(value: string): string | null {
  const match = /^\s*([0-9.]+)/.exec(value);
  return match?.[1] === undefined ? null : normalizeStatus(match[1]);
}

/**
 * Soft refusals are about this message or this sender, not the address: the mailbox
 * is full (x.2.2), the message too large for it (x.2.3, x.3.4), or a policy, content
 * or authentication block (x.7.x: spam filters, DMARC, a listed IP) — suppressing the
 * recipient for those would punish a good address for the sender's trouble. Any
 * 4.x.x is soft (a DSN that gave up after retrying). Every other 5.x.x is hard: the
 * address is bad and goes on the suppression list.
 */
const SOFT_PERMANENT = new Set(['5.2.2', '5.2.3', '5.3.4']);

/**
 * Hard or soft, from the enhanced status code when there is one; else from the basic
 * reply code: 4xx soft, 552 (storage exceeded: the mailbox is full) soft, other 5xx hard.
 */
export function bounceTypeOf(statusCode: string | null, replyCode?: number): BounceType {
  if (statusCode !== null) {
    if (statusCode.startsWith('4.') || statusCode.startsWith('5.7.') || SOFT_PERMANENT.has(statusCode)) return 'soft';
    return 'hard';
  }
  if (replyCode !== undefined && (replyCode < 500 || replyCode === 552)) return 'soft';
  return 'hard';
}

/** The details of a refusal an SMTP peer gave in its reply (`550 5.1.1 <ana@…>: user unknown`). */
export function replyBounce(reply: string, replyCode: number): BounceDetails {
  const statusCode = replyStatusCode(reply);
  return { bounce_type: bounceTypeOf(statusCode, replyCode), status_code: statusCode, diagnostic: reply, source: 'smtp' };
}

// ---- RFC 3464 message/delivery-status ----

const first = (group: FieldGroup, name: string): string | null => {
  const value = group.get(name);
  if (value === undefined) return null;
  const text = typeof value === 'string' ? value : value[0];
  return text === undefined ? null : text.replace(/\s+/g, ' ').trim();
};

/** `rfc822; ana@example.org` → `ana@example.org`; `dns; mx.example.org` → `mx.example.org`. */
export function typedValue(value: string | null): string | null {
  if (value === null) return null;
  const semicolon = value.indexOf(';');
  const text = (semicolon < 0 ? value : value.slice(semicolon + 1)).trim();
  return text === '' ? null : text;
}

/**
 * The per-message fields come first; each later group describing a recipient needs
 * Final-Recipient, Action and Status (RFC 3464 §2.3). A group missing one of those
 * makes the report unusable, since guessing its verdict could suppress a good address.
 */
export function parseDeliveryStatus(groups: readonly FieldGroup[]): Parsed<DeliveryStatus> {
  const [perMessage, ...rest] = groups;
  if (perMessage === undefined) return { ok: false, error: 'delivery-status part is empty' };
  // Some MTAs omit the per-message group; a first group naming a recipient is one.
  const recipientGroups = perMessage.has('final-recipient') ? groups : rest;
  if (recipientGroups.length === 0) return { ok: false, error: 'delivery-status has no per-recipient fields' };
  const recipients: RecipientStatus[] = [];
  for (const [index, group] of recipientGroups.entries()) {
    const finalRecipient = typedValue(first(group, 'final-recipient'));
    const action = first(group, 'action')?.toLowerCase() ?? null;
    const statusValue = first(group, 'status');
    const status = statusValue === null ? null : statusFieldCode(statusValue);
    const which = `recipient ${index + 1}`;
    if (finalRecipient === null) return { ok: false, error: `${which}: Final-Recipient missing` };
    if (action === null || !(DSN_ACTIONS as readonly string[]).includes(action)) return { ok: false, error: `${which}: Action missing or not one of ${DSN_ACTIONS.join(', ')}` };
    if (status === null) return { ok: false, error: `${which}: Status missing or not x.y.z` };
    recipients.push({
      finalRecipient,
      originalRecipient: typedValue(first(group, 'original-recipient')),
      action: action as DsnAction,
      status,
      diagnostic: typedValue(first(group, 'diagnostic-code')),
      remoteMta: typedValue(first(group, 'remote-mta')),
    });
  }
  const header = recipientGroups === groups ? undefined : perMessage;
  return {
    ok: true,
    value: {
      reportingMta: header === undefined ? null : typedValue(first(header, 'reporting-mta')),
      originalEnvelopeId: header === undefined ? null : first(header, 'original-envelope-id'),
      arrivalDate: header === undefined ? null : first(header, 'arrival-date'),
      recipients,
    },
  };
}

const ACTION_WEIGHT: Readonly<Record<DsnAction, number>> = { failed: 0, delayed: 1, delivered: 2, relayed: 3, expanded: 4 };

/** Success notices (RFC 3464 §2.3.3): delivered, passed to a mailer that sends no notices, or expanded to a list. */
export const SUCCESS_ACTIONS: readonly DsnAction[] = ['delivered', 'relayed', 'expanded'];

/** Whether a recipient group is about this address: as finally tried, or as herald gave it (ORCPT). */
export function namesRecipient(recipient: RecipientStatus, address: string): boolean {
  const wanted = address.toLowerCase();
  return recipient.finalRecipient.toLowerCase() === wanted || recipient.originalRecipient?.toLowerCase() === wanted;
}

/**
 * The recipient a report speaks about for one of our messages: herald sends one
 * envelope recipient per message, so it is the one whose address matches; when none
 * does (an alias expanded, a forward), the most severe verdict (failed, then delayed).
 */
export function recipientFor(status: DeliveryStatus, address: string): RecipientStatus | undefined {
  const matching = status.recipients.find((r) => namesRecipient(r, address));
  return matching ?? [...status.recipients].sort((a, b) => ACTION_WEIGHT[a.action] - ACTION_WEIGHT[b.action])[0];
}

/** What a failed recipient of a DSN means for the message. */
export function dsnBounce(recipient: RecipientStatus): BounceDetails {
  return {
    bounce_type: bounceTypeOf(recipient.status),
    status_code: recipient.status,
    diagnostic: recipient.diagnostic ?? `Status ${recipient.status}`,
    source: 'dsn',
  };
}

/** What a success notice tells about the delivery, for the `delivered` event: the notice's own words. */
export interface NoticeDetails {
  readonly action: DsnAction;
  readonly status_code: string;
  /** The next hop's reply as the relay reports it, or the Status when it gave none. */
  readonly diagnostic: string;
  readonly remote_mta: string | null;
  readonly source: 'dsn';
}

export function dsnDelivery(recipient: RecipientStatus): NoticeDetails {
  return {
    action: recipient.action,
    status_code: recipient.status,
    diagnostic: recipient.diagnostic ?? `Status ${recipient.status}`,
    remote_mta: recipient.remoteMta,
    source: 'dsn',
  };
}

// ---- matching a report to its message ----

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The msgid herald gave as ENVID, from a notice's Original-Envelope-Id (a UUID needs no xtext escapes), or null. */
export function msgidFromEnvelopeId(envelopeId: string): string | null {
  const text = envelopeId.trim();
  return UUID.test(text) ? text.toLowerCase() : null;
}

/** The msgid in a Message-ID herald wrote, `<msgid@host>`, or null. */
export function msgidFromMessageId(messageId: string): string | null {
  const match = /^\s*<?([^@<>\s]+)@[^<>\s]+>?\s*$/.exec(messageId);
  return match?.[1] !== undefined && UUID.test(match[1]) ? match[1].toLowerCase() : null;
}
