import type { Channel } from './account.ts';

// The public event catalogue: what a webhook receiver can be sent. A message's event
// (stored append-only in `message_events`) is seen through this table; internal steps
// (`queued`, `sending`) are never published. The listening events (INBOUND_EVENT_TYPES:
// `*.received`, `*.opted_out`, `*.opted_in`) belong to no message of herald's: they are
// posted by app/receive-inbound.ts and app/consent-ledger.ts with their own data.

export const EVENT_TYPES = [
  'email.sent',
  'email.delivered',
  'email.deferred',
  'email.bounced',
  'email.failed',
  'email.dropped',
  'email.opened',
  'email.clicked',
  'email.unsubscribed',
  'email.complained',
  'email.certified',
  'email.received',
  'email.scheduled',
  'email.cancelled',
  'sms.sent',
  'sms.delivered',
  'sms.failed',
  'sms.dropped',
  'sms.received',
  'sms.opted_out',
  'sms.opted_in',
  'sms.scheduled',
  'sms.cancelled',
  'whatsapp.sent',
  'whatsapp.delivered',
  'whatsapp.read',
  'whatsapp.failed',
  'whatsapp.dropped',
  'whatsapp.received',
  'whatsapp.opted_out',
  'whatsapp.opted_in',
  'whatsapp.scheduled',
  'whatsapp.cancelled',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The events that are about no message of herald's: what people sent, and their consent. */
export const INBOUND_EVENT_TYPES = [
  'sms.received', 'sms.opted_out', 'sms.opted_in', 'whatsapp.received', 'whatsapp.opted_out', 'whatsapp.opted_in', 'email.received',
] as const satisfies readonly EventType[];
export type InboundEventType = (typeof INBOUND_EVENT_TYPES)[number];

const SCHEDULED = 'The message was accepted (and billed) to leave at a later time, or its time was changed. Carries send_at.';
const CANCELLED = 'A scheduled message was cancelled before its time: never sent. Carries refunded (true when it had been billed and was given back).';

/** What each public type means, for the README, the OpenAPI document and `GET /v1/webhooks`. */
export const EVENT_DESCRIPTIONS: Readonly<Record<EventType, string>> = {
  'email.sent': 'A relay (HERALD_EMAIL_TRANSPORT=smtp://…) or the capture transport took the message; the recipient side has not confirmed it yet.',
  'email.delivered': "The recipient's mail server accepted the message (250 to DATA), or a relay reported it delivered or passed on (a delivery status notice: Action delivered, relayed or expanded; or its own 250 with ?delivered=accepted).",
  'email.deferred': 'A delivery attempt failed temporarily; herald retries until the retry horizon.',
  'email.bounced': 'The recipient side refused the message for good, at once (SMTP 5xx) or later (a DSN). Carries bounce_type, status_code and diagnostic.',
  'email.failed': 'herald gave up: an attachment could not be fetched, or the retry horizon passed. refunded says whether the message was given back (it is when it never left).',
  'email.dropped': 'The recipient is on the account\'s suppression list: not sent, not billed.',
  'email.opened': 'The tracking pixel was fetched. machine: true when a known prefetcher (Apple Mail Privacy Protection, a security scanner) fetched it.',
  'email.clicked': 'A tracked link was followed. Carries url; machine: true for link scanners.',
  'email.unsubscribed': 'The recipient used the List-Unsubscribe link or one-click POST; the address is now suppressed.',
  'email.complained': 'A mailbox provider forwarded a spam complaint (ARF report); the address is now suppressed.',
  'email.certified': 'A signed delivery receipt exists for a certified message. Carries certificate_url.',
  'sms.sent': 'The SMSC took the message (submit_sm_resp OK).',
  'sms.delivered': 'The SMSC reported delivery to the handset (delivery receipt).',
  'sms.failed': 'The SMSC refused the message or reported it undeliverable, or herald gave up.',
  'sms.dropped': 'The number opted out of the account\'s SMS (it answered STOP): not sent, not billed.',
  'sms.received': 'A person sent an SMS to one of the account\'s senders. Carries id, from, to, text, received_at (and keyword when it was one).',
  'sms.opted_out': 'A number opted out of the account\'s SMS from a sender (a STOP keyword). Carries number, sender, keyword.',
  'sms.opted_in': 'A number opted back in (a START keyword). Carries number, sender, keyword.',
  'whatsapp.sent': 'The WhatsApp Cloud API accepted the message.',
  'whatsapp.delivered': "WhatsApp reported the message delivered to the recipient's device.",
  'whatsapp.read': 'WhatsApp reported the message read.',
  'whatsapp.failed': 'WhatsApp refused the message or reported it failed.',
  'whatsapp.dropped': 'The person opted out of the account\'s WhatsApp template messages: not sent, not billed.',
  'whatsapp.received': 'A person sent a WhatsApp message (text, media, location, contacts, a button or list reply, a reaction). Carries id, from, to, text, type, received_at; media as attachments.',
  'whatsapp.opted_out': 'A person opted out of the account\'s WhatsApp template messages (a STOP keyword). Carries number, sender, keyword.',
  'whatsapp.opted_in': 'A person opted back in to WhatsApp template messages (a START keyword). Carries number, sender, keyword.',
  'email.scheduled': SCHEDULED,
  'email.cancelled': CANCELLED,
  'sms.scheduled': SCHEDULED,
  'sms.cancelled': CANCELLED,
  'whatsapp.scheduled': SCHEDULED,
  'whatsapp.cancelled': CANCELLED,
  'email.received': 'Mail came to one of the account\'s receiving domains. Carries id, from, to, subject, text, html, headers, authentication (SPF, DKIM, DMARC), attachments, and in_reply_to when it answers a message herald sent.',
};

export type EventFamily = 'transactional' | 'campaign';

/** The internal event types (message statuses and engagement facts) that have a public name. */
const PUBLISHED: Readonly<Record<Channel, Readonly<Record<string, EventType>>>> = {
  email: {
    sent: 'email.sent', delivered: 'email.delivered', deferred: 'email.deferred', bounced: 'email.bounced', failed: 'email.failed',
    dropped: 'email.dropped', opened: 'email.opened', clicked: 'email.clicked', unsubscribed: 'email.unsubscribed',
    complained: 'email.complained', certified: 'email.certified',
    scheduled: 'email.scheduled', cancelled: 'email.cancelled',
  },
  sms: { sent: 'sms.sent', delivered: 'sms.delivered', failed: 'sms.failed', dropped: 'sms.dropped', scheduled: 'sms.scheduled', cancelled: 'sms.cancelled' },
  whatsapp: {
    sent: 'whatsapp.sent', delivered: 'whatsapp.delivered', read: 'whatsapp.read', failed: 'whatsapp.failed', dropped: 'whatsapp.dropped',
    scheduled: 'whatsapp.scheduled', cancelled: 'whatsapp.cancelled',
  },
};

/** The public type of a recorded message event, or undefined for internal steps. */
export function publicEventType(channel: Channel, internalType: string): EventType | undefined {
  return Object.hasOwn(PUBLISHED[channel], internalType) ? PUBLISHED[channel][internalType] : undefined;
}

/** A public event as it was recorded, for the outcome counters and latency histograms (metrics/registry.ts). */
export interface RecordedPublicEvent {
  readonly channel: Channel;
  readonly type: EventType;
  /** When it happened (epoch ms). */
  readonly at: number;
  /** When its message was accepted (epoch ms): accept-to-sent and accept-to-delivered are measured from it. */
  readonly acceptedAt: number;
}

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);
}

/** What the receiver needs to know about the message an event belongs to. */
export interface EventSubject {
  readonly msgid: string;
  readonly accountId: string;
  readonly channel: Channel;
  readonly recipient: string;
  readonly family: EventFamily;
  readonly metadata: Readonly<Record<string, unknown>> | null;
  readonly certified: boolean;
  /** For email: what the send tracked. Absent for certified email (never tracked) and other channels. */
  readonly tracking?: { readonly opens: boolean; readonly clicks: boolean };
  /** A message of a campaign (POST /v1/campaigns): its id, name and lists, posted as campaign_id, campaign_name, list_ids. */
  readonly campaign?: { readonly id: string; readonly name: string; readonly listIds: readonly string[] };
  /** Sent with a test key: posted as `test: true` (docs/sandbox.md). */
  readonly test?: boolean;
  /** To a simulator recipient (domain/simulator.ts): posted as `simulated: true`. */
  readonly simulated?: boolean;
  /** A leg of a fallback chain (docs/fallback.md): posted as `fallback: {chain_id, leg, legs}`. */
  readonly fallback?: { readonly chain_id: string; readonly leg: number; readonly legs: number };
}

/** The JSON body of a webhook post, in the Standard Webhooks shape `{type, timestamp, data}`. */
export interface EventPayload {
  readonly type: EventType;
  readonly timestamp: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/**
 * The webhook body for one event. The event's own fields (peer, response,
 * bounce_type, url, machine, …) sit next to the message's; the message's fields win
 * a clash, so an event can never pose as another message. A campaign's message also
 * carries campaign_id, campaign_name and list_ids. Certified email carries
 * `certified: true` and no tracking fields. A test key's message carries `test: true`,
 * a simulator recipient's `simulated: true` (absent otherwise, never false).
 */
export function eventPayload(type: EventType, at: number, subject: EventSubject, fields: Readonly<Record<string, unknown>>): EventPayload {
  const data: Record<string, unknown> = { ...fields };
  delete data['tracking'];
  delete data['test'];
  delete data['simulated'];
  delete data['fallback'];
  Object.assign(data, {
    msgid: subject.msgid,
    account: subject.accountId,
    channel: subject.channel,
    recipient: subject.recipient,
    family: subject.family,
  });
  if (subject.metadata !== null) data['metadata'] = subject.metadata;
  if (subject.campaign !== undefined) {
    Object.assign(data, { campaign_id: subject.campaign.id, campaign_name: subject.campaign.name, list_ids: subject.campaign.listIds });
  }
  if (subject.test === true) data['test'] = true;
  if (subject.simulated === true) data['simulated'] = true;
  if (subject.fallback !== undefined) data['fallback'] = subject.fallback;
  if (subject.certified) data['certified'] = true;
  else if (subject.tracking !== undefined) data['tracking'] = subject.tracking;
  return { type, timestamp: new Date(at).toISOString(), data };
}

/** Whether an account's filter (null: every type) lets `type` through. */
export function filterAccepts(filter: readonly EventType[] | null, type: EventType): boolean {
  return filter === null || filter.includes(type);
}
