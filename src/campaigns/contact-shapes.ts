import { Type, type Static } from '@sinclair/typebox';
import { CONTACT_NAME_MAX } from './contact-fields.ts';
import { CONSENT_SOURCES, SUBSCRIPTION_STATUSES } from './consent.ts';
import { Id, ListIds, literals, Timestamp } from './wire-fields.ts';

// The wire shapes of /v1/contacts and its imports, declared once (see list-shapes.ts).

const Name = Type.Union([Type.String({ maxLength: CONTACT_NAME_MAX }), Type.Null()], { description: 'An empty name is stored as null' });
const Attributes = Type.Record(Type.String(), Type.Unknown(), {
  description: 'A JSON object (at most 16 KiB, 3 levels deep); names are 1–64 letters, digits, spaces, - or _. '
    + 'Merged into the stored object as an RFC 7396 merge patch: a null value removes the attribute.',
});

export const ContactCreateSchema = Type.Object({
  email: Type.String({ description: 'Matched without regard to case; stored lower-cased' }),
  name: Type.Optional(Name),
  attributes: Type.Optional(Attributes),
  lists: Type.Optional(ListIds('Lists to join (see docs/campaigns.md for the consent rules)')),
}, { additionalProperties: false });
export type ContactCreate = Static<typeof ContactCreateSchema>;

export const ContactPatchSchema = Type.Object({
  email: Type.Optional(Type.String({ description: 'A new address; 409 when another contact has it' })),
  name: Type.Optional(Name),
  attributes: Type.Optional(Attributes),
  lists: Type.Optional(ListIds('Lists to join')),
  unsubscribe: Type.Optional(ListIds('Lists to leave: their subscriptions become `unsubscribed`')),
}, { additionalProperties: false });
export type ContactPatch = Static<typeof ContactPatchSchema>;

export const SubscriptionSchema = Type.Object({ list_id: Id('The list'), status: literals(SUBSCRIPTION_STATUSES) });

export const ConsentEntrySchema = Type.Object({
  list_id: Id('The list'),
  status: literals(SUBSCRIPTION_STATUSES, 'The subscription\'s status after the change'),
  source: literals(CONSENT_SOURCES),
  at: Timestamp,
  detail: Type.Record(Type.String(), Type.String(), {
    description: '`import_id` (import), `msgid` (the confirmation email, or the message unsubscribed from), `ip` and `user_agent` (link)',
  }),
});

const contactFields = {
  contact_id: Id('The contact'),
  email: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  attributes: Type.Record(Type.String(), Type.Unknown()),
  lists: Type.Array(SubscriptionSchema),
  created_at: Timestamp,
  updated_at: Timestamp,
};

/** A contact in a page of GET /v1/contacts. */
export const ContactSummarySchema = Type.Object(contactFields);
export type ContactSummary = Static<typeof ContactSummarySchema>;

/** One contact, with its consent history (the latest 100 changes, oldest first). */
export const ContactViewSchema = Type.Object({ ...contactFields, consent: Type.Array(ConsentEntrySchema) });
export type ContactView = Static<typeof ContactViewSchema>;
export type ConsentEntry = Static<typeof ConsentEntrySchema>;

export const ContactPageSchema = Type.Object({
  contacts: Type.Array(ContactSummarySchema),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page; null on the last' }),
});
export type ContactPage = Static<typeof ContactPageSchema>;

export const IMPORT_STATUSES = ['running', 'finished', 'failed'] as const;

export const ImportAcceptedSchema = Type.Object({ import_id: Id('Follow it at GET /v1/contacts/imports/{import_id}') });

export const ImportViewSchema = Type.Object({
  import_id: Id('The import'),
  list_id: Type.Union([Type.String(), Type.Null()]),
  status: literals(IMPORT_STATUSES),
  rows: Type.Integer({ description: 'Data rows read so far (the header not counted)' }),
  created: Type.Integer({ description: 'Contacts created' }),
  updated: Type.Integer({ description: 'Rows for contacts that existed (or appeared earlier in the import)' }),
  rejected: Type.Integer({ description: 'Rows refused' }),
  errors: Type.Array(Type.Object({ row: Type.Integer(), message: Type.String() }), { description: 'The first 100 refused rows; row 1 is the first data row' }),
  failure: Type.Union([Type.String(), Type.Null()], { description: 'Why a failed import stopped; null otherwise' }),
  created_at: Timestamp,
  finished_at: Type.Union([Timestamp, Type.Null()]),
});
export type ImportView = Static<typeof ImportViewSchema>;

export const DEFAULT_CONTACT_PAGE = 50;
export const MAX_CONTACT_PAGE = 500;

/** GET /v1/contacts's query (empty parameters count as absent). */
export const ContactQuerySchema = Type.Object({
  list_id: Type.Optional(Id('Only contacts with a subscription to this list, in any status')),
  email: Type.Optional(Type.String({ maxLength: 320, description: 'Only the contact with this address (any case)' })),
  cursor: Type.Optional(Type.String({
    pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$', errorMessage: 'must be the next_cursor of a previous page',
    description: 'next_cursor of the previous page',
  })),
  limit: Type.Optional(Type.String({
    pattern: '^(?:[1-9][0-9]{0,1}|[1-4][0-9]{2}|500)$', errorMessage: `must be a whole number from 1 to ${MAX_CONTACT_PAGE}`,
    description: `1 to ${MAX_CONTACT_PAGE}, default ${DEFAULT_CONTACT_PAGE}`,
  })),
}, { additionalProperties: false });
export type ContactQuery = Static<typeof ContactQuerySchema>;

export const ContactExportQuerySchema = Type.Object({
  list_id: Type.Optional(Id('Only contacts with a subscription to this list, in any status, with a `status` column')),
}, { additionalProperties: false });
export type ContactExportQuery = Static<typeof ContactExportQuerySchema>;
