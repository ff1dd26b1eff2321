import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { exportAccountContacts } from '../../app/contact-export.ts';
import {
  createAccountContact, deleteAccountContact, getAccountContact, listAccountContacts, patchAccountContact,
} from '../../app/contacts.ts';
import {
  ContactCreateSchema, ContactExportQuerySchema, ContactPageSchema, ContactPatchSchema, ContactQuerySchema, ContactViewSchema, type ContactCreate, type ContactExportQuery, type ContactPatch,
} from '../../campaigns/contact-shapes.ts';
import { contactAddressFirst } from '../interface-checks.ts';
import { callerOf, sendingMode } from '../route-access.ts';
import { sendRejection, sendResult } from '../wire-errors.ts';
import { applicationError } from '../schemas/errors.ts';
import { audienceErrors, idParams, invalidBody, notFound } from './campaign-route-docs.ts';
import type { RouteDeps } from '../route-deps.ts';

// /v1/contacts (scope `email`): one contact per address, its lists and its consent.
// docs/campaigns.md has the rules; imports are in contact-imports.ts.

const tags = ['contacts'];
const params = idParams('contact_id', 'The contact');
const invalid = invalidBody('`Email missing or empty!`, `The email address has the wrong structure!` (with `error`), '
  + 'or `Invalid request, a field has the wrong type or value` (with `detail`)');
const missing = notFound('No such contact, or a list id of the body that is not one of the account\'s');
type ContactParams = { Params: { contact_id: string } };

export function contactRoutes(app: FastifyInstance, { app: deps }: RouteDeps): void {

  app.post<{ Body: ContactCreate }>('/v1/contacts', {
    schema: {
      summary: 'Create or update a contact by address (case-insensitive), and join lists', tags,
      body: ContactCreateSchema,
      response: { 200: { description: 'The contact existed', ...ContactViewSchema }, 201: { description: 'A new contact', ...ContactViewSchema }, ...invalid, ...missing, ...audienceErrors },
    },
    config: { access: { scope: 'email', access: 'write' } },
    preValidation: contactAddressFirst(true),
  }, async (request, reply) => {
    const saved = await createAccountContact(deps, callerOf(request).account, request.body, sendingMode(request));
    return saved.ok ? reply.code(saved.value.created ? 201 : 200).send(saved.value.view) : sendRejection(reply, saved.rejection);
  });

  app.get('/v1/contacts', {
    schema: {
      summary: 'The account\'s contacts in creation order, a page at a time', tags,
      querystring: ContactQuerySchema,
      response: { 200: ContactPageSchema, ...invalidBody('A bad list_id, cursor or limit (with `detail`)'), ...notFound('list_id is not a list of this account'), ...audienceErrors },
    },
    config: { access: { scope: 'email', access: 'read' } },
  }, async (request, reply) => sendResult(reply, await listAccountContacts(deps, callerOf(request).account.id, request.query)));

  app.get<{ Querystring: ContactExportQuery }>('/v1/contacts/export', {
    schema: {
      summary: 'The account\'s contacts (or a list\'s) as CSV: `email,name,created_at,attributes` (with a list, `status` after `name`), '
        + 'RFC 4180, CRLF, in creation order, attributes as one JSON cell, cells that would start a spreadsheet formula prefixed with a single quote', tags,
      querystring: ContactExportQuerySchema,
      response: {
        200: { description: 'text/csv, sent as an attachment named contacts.csv (contacts-<list_id>.csv)', content: { 'text/csv': { schema: { type: 'string' } } } },
        ...invalidBody('A bad list_id (with `detail`)'), ...notFound('list_id is not a list of this account'), ...audienceErrors,
      },
    },
    config: { access: { scope: 'email', access: 'read' } },
  }, async (request, reply) => {
    const exported = await exportAccountContacts(deps, callerOf(request).account.id, request.query);
    if (!exported.ok) return sendRejection(reply, exported.rejection);
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${exported.value.filename}"`)
      .send(Readable.from(exported.value.lines));
  });

  app.get<ContactParams>('/v1/contacts/:contact_id', {
    schema: {
      summary: 'One contact, with its lists and its consent history', tags, params,
      response: { 200: ContactViewSchema, ...notFound('No such contact in this account'), ...audienceErrors },
    },
    config: { access: { scope: 'email', access: 'read' } },
  }, async (request, reply) => sendResult(reply, await getAccountContact(deps, callerOf(request).account.id, request.params.contact_id)));

  app.patch<ContactParams & { Body: ContactPatch }>('/v1/contacts/:contact_id', {
    schema: {
      summary: 'Change a contact: the fields given; `lists` joins, `unsubscribe` leaves', tags, params,
      body: ContactPatchSchema,
      response: {
        200: ContactViewSchema, ...invalid, ...missing,
        409: { description: 'Another contact has the new email (`Already exists`)', ...applicationError }, ...audienceErrors,
      },
    },
    config: { access: { scope: 'email', access: 'write' } },
    preValidation: contactAddressFirst(false),
  }, async (request, reply) => sendResult(reply, await patchAccountContact(deps, callerOf(request).account, request.params.contact_id, request.body, sendingMode(request))));

  app.delete<ContactParams>('/v1/contacts/:contact_id', {
    schema: {
      summary: 'Erase a contact: its data, subscriptions and consent history; an unsubscribed address joins the suppression list', tags, params,
      response: { 204: { description: 'Erased', type: 'null' }, ...notFound('No such contact in this account'), ...audienceErrors },
    },
    config: { access: { scope: 'email', access: 'write' } },
  }, async (request, reply) => sendResult(reply, await deleteAccountContact(deps, callerOf(request).account.id, request.params.contact_id), 204));
}
