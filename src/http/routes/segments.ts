import type { FastifyInstance } from 'fastify';
import { countAccountSegment } from '../../app/segments.ts';
import { SegmentCountAnswerSchema, SegmentCountSchema } from '../../campaigns/segment-filter.ts';
import { callerOf } from '../route-access.ts';
import { sendResult } from '../wire-errors.ts';
import { audienceErrors, invalidBody, notFound } from './campaign-route-docs.ts';
import type { RouteDeps } from '../route-deps.ts';

// /v1/segments (scope `email`): a campaign's audience, counted. The filter language is
// in campaigns/segment-filter.ts and docs/campaigns.md.

export function segmentRoutes(app: FastifyInstance, { app: deps }: RouteDeps): void {
  app.post('/v1/segments/count', {
    schema: {
      summary: 'Count the contacts of lists, minus excluded lists, narrowed by a filter', tags: ['segments'],
      body: SegmentCountSchema,
      response: {
        200: SegmentCountAnswerSchema,
        ...invalidBody('`Invalid request, a field has the wrong type or value`, with a `detail` naming the offending filter node'),
        ...notFound('A list id of the body is not one of the account\'s'), ...audienceErrors,
      },
    },
    config: { access: { scope: 'email', access: 'read' } },
  }, async (request, reply) => sendResult(reply, await countAccountSegment(deps, callerOf(request).account.id, request.body)));
}
