import type { FastifyInstance } from 'fastify';
import { createList, getList, listAccountLists, patchList, removeList } from '../../app/lists.ts';
import {
  ListCollectionSchema, ListCreatedSchema, ListCreateSchema, ListPatchSchema, ListViewSchema, type ListCreate, type ListPatch,
} from '../../campaigns/list-shapes.ts';
import { callerOf } from '../route-access.ts';
import { sendResult } from '../wire-errors.ts';
import { audienceErrors, idParams, invalidBody, notFound } from './campaign-route-docs.ts';
import type { RouteDeps } from '../route-deps.ts';

// /v1/lists (scope `email`): the account's mailing lists. docs/campaigns.md has the rules.

const tags = ['lists'];
const params = idParams('list_id', 'The list');
const invalid = invalidBody('`Invalid request, a field has the wrong type or value` (with `detail`), `The from address has the wrong structure!`, `Could not find template`');
type ListParams = { Params: { list_id: string } };

export function listRoutes(app: FastifyInstance, { app: deps }: RouteDeps): void {

  app.post<{ Body: ListCreate }>('/v1/lists', {
    schema: {
      summary: 'Create a list', tags, body: ListCreateSchema,
      response: { 201: ListCreatedSchema, ...invalid, ...audienceErrors },
    },
    config: { access: { scope: 'email', access: 'write' } },
  }, async (request, reply) => sendResult(reply, await createList(deps, callerOf(request).account.id, request.body), 201));

  app.get('/v1/lists', {
    schema: {
      summary: 'The account\'s lists, oldest first, with their subscribers per status', tags,
      response: { 200: ListCollectionSchema, ...audienceErrors },
    },
    config: { access: { scope: 'email', access: 'read' } },
  }, async (request) => listAccountLists(deps, callerOf(request).account.id));

  app.get<ListParams>('/v1/lists/:list_id', {
    schema: {
      summary: 'One list, with its subscribers per status', tags, params,
      response: { 200: ListViewSchema, ...notFound('No such list in this account'), ...audienceErrors },
    },
    config: { access: { scope: 'email', access: 'read' } },
  }, async (request, reply) => sendResult(reply, await getList(deps, callerOf(request).account.id, request.params.list_id)));

  app.patch<ListParams & { Body: ListPatch }>('/v1/lists/:list_id', {
    schema: {
      summary: 'Change a list (the fields given); a change of opt-in applies to subscriptions made afterwards', tags,
      params, body: ListPatchSchema,
      response: { 200: ListViewSchema, ...invalid, ...notFound('No such list in this account'), ...audienceErrors },
    },
    config: { access: { scope: 'email', access: 'write' } },
  }, async (request, reply) => sendResult(reply, await patchList(deps, callerOf(request).account.id, request.params.list_id, request.body)));

  app.delete<ListParams>('/v1/lists/:list_id', {
    schema: {
      summary: 'Delete a list and its subscriptions (the contacts stay)', tags, params,
      response: { 204: { description: 'Deleted', type: 'null' }, ...notFound('No such list in this account'), ...audienceErrors },
    },
    config: { access: { scope: 'email', access: 'write' } },
  }, async (request, reply) => sendResult(reply, await removeList(deps, callerOf(request).account.id, request.params.list_id), 204));
}
