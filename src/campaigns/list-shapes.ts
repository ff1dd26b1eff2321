import { Type, type Static } from '@sinclair/typebox';
import { Id, Sender, Timestamp } from './wire-fields.ts';

// The wire shapes of /v1/lists, declared once: the OpenAPI document shows them, the
// use cases check bodies against them (domain/schema-check.ts), the types derive.

export const LIST_NAME_MAX = 200;
export const LIST_DESCRIPTION_MAX = 1000;

const Optin = Type.Union([Type.Literal('single'), Type.Literal('double')], {
  description: '`single`: joining confirms at once; `double`: joining sends a confirmation email and waits for the link',
});
const Description = Type.Union([Type.String({ maxLength: LIST_DESCRIPTION_MAX }), Type.Null()]);
const From = Type.Union([Sender, Type.Null()], { description: 'The sender of the list\'s confirmation emails; required for double opt-in' });
const TemplateId = Type.Union([Id('An email template of the account'), Type.Null()], {
  description: 'Replaces herald\'s confirmation email: its subject (if any), HTML and text, with {{confirm_url}} (required), {{list_name}}, {{email}} and {{name}}',
});

export const ListCreateSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: LIST_NAME_MAX }),
  optin: Optin,
  description: Type.Optional(Description),
  from: Type.Optional(From),
  confirmation_template_id: Type.Optional(TemplateId),
}, { additionalProperties: false });
export type ListCreate = Static<typeof ListCreateSchema>;

export const ListPatchSchema = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: LIST_NAME_MAX })),
  optin: Type.Optional(Optin),
  description: Type.Optional(Description),
  from: Type.Optional(From),
  confirmation_template_id: Type.Optional(TemplateId),
}, { additionalProperties: false, description: 'Only the fields given change; null clears description, from and confirmation_template_id' });
export type ListPatch = Static<typeof ListPatchSchema>;

export const SubscriberCountsSchema = Type.Object({
  confirmed: Type.Integer(), unconfirmed: Type.Integer(), unsubscribed: Type.Integer(),
});

const listFields = {
  list_id: Id('The list'),
  name: Type.String(),
  optin: Optin,
  description: Type.Union([Type.String(), Type.Null()]),
  from: From,
  confirmation_template_id: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
};

/** POST /v1/lists answers the list as created. */
export const ListCreatedSchema = Type.Object(listFields);
export type ListCreated = Static<typeof ListCreatedSchema>;

/** Every other answer adds the subscriber counts. */
export const ListViewSchema = Type.Object({ ...listFields, subscribers: SubscriberCountsSchema });
export type ListView = Static<typeof ListViewSchema>;
export type SubscriberCounts = Static<typeof SubscriberCountsSchema>;

export const ListCollectionSchema = Type.Object({ lists: Type.Array(ListViewSchema) });
