import { Type, type Static } from '@sinclair/typebox';
import { FilterSchema } from './segment-filter.ts';
import { Id, ListIds, literals, MAX_LISTS_PER_REQUEST, Timestamp } from './wire-fields.ts';

// The wire shapes of /v1/campaigns, declared once: the OpenAPI document shows them, the
// use cases check herald's own fields against them (the content fields — from,
// replyTo, subject, body, template_id, variables — are checked by POST /v1/email's
// parser first, so they answer with the interface's texts), the types derive.

export const CAMPAIGN_NAME_MAX = 200;
/** An ISO-8601 date and time with a zone (what Date.parse reads the same everywhere). */
const ISO_TIME = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2})$';
/** Highest pace a campaign may ask for; absent: as fast as the worker goes. */
export const MAX_MESSAGES_PER_MINUTE = 1_000_000;
/**
 * The per-recipient-domain limit a campaign gets when its creation does not name one:
 * 600 a minute (one message every 100 ms to gmail.com, to example.org, …), a cautious
 * pace for a sending address big mailbox providers do not know yet, which still lets an
 * audience spread over many domains go as fast as the worker can.
 */
export const DEFAULT_MESSAGES_PER_MINUTE_PER_DOMAIN = 600;

export const CAMPAIGN_STATUSES = ['draft', 'scheduled', 'running', 'paused', 'finished', 'cancelled'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export const RESEND_TARGETS = ['not_opened', 'not_clicked'] as const;
export type ResendTarget = (typeof RESEND_TARGETS)[number];

const Address = Type.Object({ email: Type.String(), name: Type.String() });
const Lists = Type.Array(Id('A list of the account'), {
  minItems: 1, maxItems: MAX_LISTS_PER_REQUEST, description: 'Contacts with a confirmed subscription to at least one of these lists',
});
const SendAt = Type.Union([Type.String({ pattern: ISO_TIME, errorMessage: 'must be an ISO-8601 time' }), Type.Null()], {
  description: 'When POST …/send starts sending (status `scheduled` until then); null or absent: at once',
});
const pace = (description: string) => Type.Union([Type.Integer({ minimum: 1, maximum: MAX_MESSAGES_PER_MINUTE, errorMessage: `must be an integer from 1 to ${MAX_MESSAGES_PER_MINUTE}` }), Type.Null()], { description });
const Pace = pace('At most this many messages a minute leave for the campaign; null or absent: unpaced');
const DomainPace = pace(`At most this many of the campaign's messages a minute go to any one recipient domain (the part after @: gmail.com, example.org), spaced evenly; null: no per-domain limit; absent at creation: ${DEFAULT_MESSAGES_PER_MINUTE_PER_DOMAIN}`);

// The content fields as POST /v1/email has them: shown in the document, checked by its parser.
const contentFields = {
  subject: Type.String({ description: 'May use the template variables' }),
  from: Address,
  replyTo: Address,
  body: Type.Optional(Type.String({ description: 'HTML or text with {{contact.email}}, {{contact.name}}, {{contact.attributes.<name>}}, {{unsubscribe_url}} and the variables; without {{unsubscribe_url}} a footer with the link is added' })),
  template_id: Type.Optional(Type.String({ description: 'An email template of the account, instead of body' })),
  variables: Type.Optional(Type.Record(Type.String(), Type.String())),
};

const ownFields = {
  name: Type.String({ minLength: 1, maxLength: CAMPAIGN_NAME_MAX }),
  lists: Lists,
  exclude_lists: Type.Optional(ListIds('Minus the contacts on any of these lists, in any status')),
  filter: Type.Optional(Type.Union([FilterSchema, Type.Null()])),
  send_at: Type.Optional(SendAt),
  messages_per_minute: Type.Optional(Pace),
  messages_per_minute_per_domain: Type.Optional(DomainPace),
};

export const CampaignCreateSchema = Type.Object({ ...contentFields, ...ownFields }, { additionalProperties: false });

/** What the use case checks with TypeBox after the content parser: the content fields are already checked. */
export const CampaignOwnFieldsShape = Type.Object({
  ...ownFields,
  filter: Type.Optional(Type.Unknown()),
  subject: Type.Optional(Type.Unknown()), from: Type.Optional(Type.Unknown()), replyTo: Type.Optional(Type.Unknown()),
  body: Type.Optional(Type.Unknown()), template_id: Type.Optional(Type.Unknown()), variables: Type.Optional(Type.Unknown()),
}, { additionalProperties: false });

export const CampaignPatchSchema = Type.Partial(CampaignCreateSchema, {
  additionalProperties: false,
  description: 'The fields given replace the stored ones (while draft, scheduled or paused; the audience only while draft)',
});
export const CampaignPatchOwnShape = Type.Partial(CampaignOwnFieldsShape, { additionalProperties: false });

export const CampaignViewSchema = Type.Object({
  campaign_id: Id('The campaign'),
  name: Type.String(),
  status: literals(CAMPAIGN_STATUSES),
  subject: Type.String(),
  from: Address,
  replyTo: Address,
  body: Type.Union([Type.String(), Type.Null()]),
  template_id: Type.Union([Type.String(), Type.Null()]),
  variables: Type.Record(Type.String(), Type.String()),
  lists: Type.Array(Type.String()),
  exclude_lists: Type.Array(Type.String()),
  filter: Type.Union([FilterSchema, Type.Null()]),
  send_at: Type.Union([Timestamp, Type.Null()]),
  messages_per_minute: Type.Union([Type.Integer(), Type.Null()]),
  messages_per_minute_per_domain: Type.Union([Type.Integer(), Type.Null()], { description: 'The per-recipient-domain limit the campaign sends under; null: none' }),
  follows: Type.Union([Type.Object({ campaign_id: Type.String(), to: literals(RESEND_TARGETS) }), Type.Null()], { description: 'A follow-up (POST …/resend): the campaign it follows and whom it targets' }),
  recipients: Type.Integer({ description: 'Messages debited at send (0 before); a test campaign\'s recipients, never debited' }),
  created_at: Timestamp,
  updated_at: Timestamp,
  started_at: Type.Union([Timestamp, Type.Null()]),
  finished_at: Type.Union([Timestamp, Type.Null()]),
  mode: Type.Optional(Type.Literal('test', { description: 'A test key\'s campaign (docs/sandbox.md): its messages are test messages, captured and never billed; absent on live campaigns' })),
});
export type CampaignView = Static<typeof CampaignViewSchema>;

export const CampaignCollectionSchema = Type.Object({ campaigns: Type.Array(CampaignViewSchema) });
export const CampaignQuerySchema = Type.Object({ status: Type.Optional(literals(CAMPAIGN_STATUSES)) }, { additionalProperties: false });

export const QuoteSchema = Type.Object({
  recipients: Type.Integer({ description: 'Contacts who would get a message now' }),
  excluded: Type.Object({
    unsubscribed: Type.Integer({ description: 'On the lists, unsubscribed from every one of them' }),
    unconfirmed: Type.Integer({ description: 'On the lists, not yet confirmed on any' }),
    suppressed: Type.Integer({ description: 'In the segment, but on the account\'s suppression list' }),
    excluded_lists: Type.Integer({ description: 'Confirmed, but on an excluded list' }),
    filtered: Type.Integer({ description: 'Confirmed, but not matching the filter' }),
  }),
  messages: Type.Integer({ description: 'Messages the send debits (0 for a test campaign: its messages are test messages)' }),
  messages_left: Type.Integer({ description: 'The account\'s messages left now' }),
});
export type Quote = Static<typeof QuoteSchema>;

export const TestSendSchema = Type.Object({
  emails: Type.Array(Type.String(), { minItems: 1, maxItems: 10, description: 'Addresses to send a test copy to (billed as ordinary emails)' }),
}, { additionalProperties: false });
export type TestSendRequest = Static<typeof TestSendSchema>;

export const ResendSchema = Type.Object({
  to: literals(RESEND_TARGETS, '`not_opened`: who got the message and did not open it (human opens); `not_clicked`: who got it and did not click'),
  subject: Type.Optional(Type.String({ minLength: 1, maxLength: 998 })),
  send_at: Type.Optional(SendAt),
}, { additionalProperties: false });
export type ResendRequest = Static<typeof ResendSchema>;

export const StatsSchema = Type.Object({
  recipients: Type.Integer({ description: 'Messages made (one per contact, dropped ones included)' }),
  sent: Type.Integer({ description: 'email.sent events' }),
  delivered: Type.Integer({ description: 'email.delivered events' }),
  bounced: Type.Object({ hard: Type.Integer(), soft: Type.Integer() }, { description: 'email.bounced events by bounce_type (soft: any other)' }),
  failed: Type.Integer({ description: 'email.failed events' }),
  dropped: Type.Integer({ description: 'email.dropped events (suppressed addresses)' }),
  opened: Type.Object({
    unique: Type.Integer({ description: 'Messages with a human open' }),
    human: Type.Integer({ description: 'email.opened events with machine: false' }),
    machine: Type.Integer({ description: 'email.opened events with machine: true' }),
  }),
  clicked: Type.Object({
    unique: Type.Integer({ description: 'Messages with a human click' }),
    human: Type.Integer({ description: 'email.clicked events with machine: false' }),
    by_url: Type.Array(Type.Object({ url: Type.String(), clicks: Type.Integer() }), { description: 'Every email.clicked event (human and machine) by link, most clicked first, at most 100 links' }),
  }),
  unsubscribed: Type.Integer({ description: 'email.unsubscribed events' }),
  complained: Type.Integer({ description: 'email.complained events' }),
});
export type Stats = Static<typeof StatsSchema>;

export const TIMELINE_INTERVALS = ['hour', 'day'] as const;
export const TimelineQuerySchema = Type.Object({ interval: Type.Optional(literals(TIMELINE_INTERVALS, 'Bucket size; default hour')) }, { additionalProperties: false });
export const TimelineSchema = Type.Object({
  interval: literals(TIMELINE_INTERVALS),
  points: Type.Array(Type.Object({ at: Timestamp, opened: Type.Integer(), clicked: Type.Integer() }), { description: 'Human opens and clicks per bucket, oldest first; buckets without any are left out' }),
});

export const DEFAULT_RECIPIENT_PAGE = 100;
export const MAX_RECIPIENT_PAGE = 1000;
export const RecipientQuerySchema = Type.Object({
  status: Type.Optional(Type.String({ description: 'Only messages in this status (queued, sending, deferred, sent, delivered, failed, bounced, dropped)' })),
  cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: `1 to ${MAX_RECIPIENT_PAGE}, default ${DEFAULT_RECIPIENT_PAGE}` })),
}, { additionalProperties: false });
export const RecipientPageSchema = Type.Object({
  recipients: Type.Array(Type.Object({ contact_id: Type.String(), email: Type.String(), msgid: Type.String(), status: Type.String(), updated_at: Timestamp })),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});
