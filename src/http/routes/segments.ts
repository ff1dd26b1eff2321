import type { FastifyInstance } from 'fastify';
import {
  createSavedSegment, getSavedSegment, listAccountSavedSegments, removeSavedSegment, replaceSavedSegment,
} from '../../app/saved-segments.ts';
import { countAccountSegment, sampleAccountSegment } from '../../app/segments.ts';
import {
  SavedSegmentBodySchema, SavedSegmentCollectionSchema, SavedSegmentViewSchema, SegmentSampleSchema,
} from '../../campaigns/saved-segment-shapes.ts';
import { SegmentCountAnswerSchema, SegmentCountSchema } from '../../campaigns/segment-filter.ts';
import { callerOf } from '../route-access.ts';
import { applicationError } from '../schemas/errors.ts';
import { sendResult } from '../wire-errors.ts';
import { audienceErrors, idParams, invalidBody, notFound } from './campaign-route-docs.ts';
import type { RouteDeps } from '../route-deps.ts';

// /v1/segments (scope `email`): a campaign's audience, counted, and audiences saved by
// name. The filter language is in campaigns/segment-filter.ts and docs/campaigns.md.

const tags = ['segments'];
const params = idParams('segment_id', 'The saved segment');
const invalid = invalidBody('`Invalid request, a field has the wrong type or value`, with a `detail` naming the field or the offending filter node');
const taken = { 409: { description: 'Another segment of the account has the name (`Already exists`, with `detail`)', ...applicationError } } as const;
type SegmentParams = { Params: { segment_id: string } };
// What a count or a sample answers to its body besides 200.
const audienceBodyErrors = {
  ...invalidBody('`Invalid request, a field has the wrong type or value`, with a `detail` naming the offending filter node'),
  ...notFound('A list id of the body is not one of the account\'s'), ...audienceErrors,
} as const;

export function segmentRoutes(app: FastifyInstance, { app: deps }: RouteDeps): void {
  app.post('/v1/segments/count', {
    schema: {
      summary: 'Count the contacts of lists, minus excluded lists, narrowed by a filter', tags,
      body: SegmentCountSchema,
      response: {
        200: SegmentCountAnswerSchema,
        ...audienceBodyErrors,
      },
    },
    config: { access: { scope: 'email', access: 'read' } },
  }, async (request, reply) => sendResult(reply, await countAccountSegment(deps, callerOf(request).account.id, request.body)));

  app.post('/v1/segments/sample', {
    schema: {
      summary: 'The first contacts (at most 20) of lists, minus excluded lists, narrowed by a filter: a campaign is previewed as one of them', tags,
      body: SegmentCountSchema,
      response: {
        200: SegmentSampleSchema,
        ...audienceBodyErrors,
      },
    },
    config: { access: { scope: 'email', access: 'read' } },
  }, async (request, reply) => sendResult(reply, await sampleAccountSegment(deps, callerOf(request).account.id, request.body)));

  app.get('/v1/segments', {
    schema: {
      summary: 'The account\'s saved segments, by name', tags,
      response: { 200: SavedSegmentCollectionSchema, ...audienceErrors },
    },
    config: { access: { scope: 'email', access: 'read' } },
  }, async (request) => listAccountSavedSegments(deps, callerOf(request).account.id));

  app.post('/v1/segments', {
    schema: {
      summary: 'Save an audience by name: the lists, excluded lists and filter of POST /v1/segments/count', tags,
      body: SavedSegmentBodySchema,
      response: {
        201: SavedSegmentViewSchema, ...invalid, ...notFound('A list id of the body is not one of the account\'s'), ...taken,
        ...audienceErrors, 403: { description: 'Authentication failed, or 500 saved segments already (`Account quota exceeded`)', ...applicationError },
      },
    },
    config: { access: { scope: 'email', access: 'write' } },
  }, async (request, reply) => sendResult(reply, await createSavedSegment(deps, callerOf(request).account.id, request.body), 201));

  app.get<SegmentParams>('/v1/segments/:segment_id', {
    schema: {
      summary: 'One saved segment', tags, params,
      response: { 200: SavedSegmentViewSchema, ...notFound('No such segment in this account'), ...audienceErrors },
    },
    config: { access: { scope: 'email', access: 'read' } },
  }, async (request, reply) => sendResult(reply, await getSavedSegment(deps, callerOf(request).account.id, request.params.segment_id)));

  app.put<SegmentParams>('/v1/segments/:segment_id', {
    schema: {
      summary: 'Replace a saved segment\'s name and audience; campaigns made from it keep theirs', tags, params,
      body: SavedSegmentBodySchema,
      response: { 200: SavedSegmentViewSchema, ...invalid, ...notFound('No such segment, or a list id of the body that is not the account\'s'), ...taken, ...audienceErrors },
    },
    config: { access: { scope: 'email', access: 'write' } },
  }, async (request, reply) => sendResult(reply, await replaceSavedSegment(deps, callerOf(request).account.id, request.params.segment_id, request.body)));

  app.delete<SegmentParams>('/v1/segments/:segment_id', {
    schema: {
      summary: 'Delete a saved segment; campaigns made from it keep their audience', tags, params,
      response: { 204: { description: 'Deleted', type: 'null' }, ...notFound('No such segment in this account'), ...audienceErrors },
    },
    config: { access: { scope: 'email', access: 'write' } },
  }, async (request, reply) => sendResult(reply, await removeSavedSegment(deps, callerOf(request).account.id, request.params.segment_id), 204));
}
