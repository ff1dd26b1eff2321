import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { campaignMode, createCampaign, getCampaign, listAccountCampaigns, patchCampaign, quoteCampaign, removeCampaign } from '../../app/campaigns.ts';
import { moveCampaignTo, resendCampaign, sendCampaign, sendCampaignTest } from '../../app/send-campaign.ts';
import { campaignStats, campaignTimeline, listCampaignRecipients, tagStats } from '../../app/campaign-stats.ts';
import {
  CAMPAIGN_STATUSES, CampaignCollectionSchema, CampaignCreateSchema, CampaignPatchSchema, CampaignViewSchema, QuoteSchema, ResendSchema,
  TestSendSchema, type CampaignStatus, StatsSchema, TimelineQuerySchema, TimelineSchema, RecipientQuerySchema, RecipientPageSchema,
  type ResendRequest, type TestSendRequest,
} from '../../campaigns/campaign-shapes.ts';
import { callerOf, refuseLiveThing, sendingMode } from '../route-access.ts';
import { sendRejection, sendResult } from '../wire-errors.ts';
import { idempotencyDocs, REPLAYED, sendWithIdempotencyKey } from '../plugins/idempotency.ts';
import { audienceErrors, idParams, invalidBody, notFound } from './campaign-route-docs.ts';
import type { RouteDeps } from '../route-deps.ts';

// /v1/campaigns (scope `email`): campaigns, their sending and their life. docs/campaigns.md has the rules.

const tags = ['campaigns'];
const params = idParams('campaign_id', 'The campaign');
const invalid = invalidBody('The texts of POST /v1/email for from, replyTo, subject, body, template_id and variables; `Invalid request, a field has the wrong type or value` (with `detail`) for the others');
const wrongState = {
  409: {
    description: '`The campaign cannot do this in its current status`, with `status`: the campaign\'s status now',
    type: 'object', required: ['message', 'status'], properties: { message: { type: 'string' }, status: { type: 'string', enum: [...CAMPAIGN_STATUSES] } },
  },
} as const;
const noSuchCampaign = notFound('No such campaign in this account');
const TEST_CAMPAIGNS_ONLY = 'a test key changes, sends and follows up only test campaigns (the ones test keys made)';
type CampaignParams = { Params: { campaign_id: string } };
const read = { access: { scope: 'email', access: 'read' } } as const;
const write = { access: { scope: 'email', access: 'write' } } as const;


export function campaignRoutes(app: FastifyInstance, { app: deps }: RouteDeps): void {
  // A test key's campaign is a test campaign (docs/sandbox.md); a live one a test key may
  // read, never change, send, pause, resume, cancel or follow up. A campaign that is not
  // there is the handler's 404. The mode of a campaign never changes, so reading it first is safe.
  // A preValidation hook: the refusal comes before the body's schema is checked, as it did
  // when the use cases checked the bodies.
  const testCampaignsOnly = async (request: FastifyRequest<CampaignParams>, reply: FastifyReply): Promise<void> => {
    if (sendingMode(request) !== 'test') return;
    const mode = await campaignMode(deps, callerOf(request).account.id, request.params.campaign_id);
    if (mode === 'live') return void refuseLiveThing(reply, TEST_CAMPAIGNS_ONLY);
  };

  app.post('/v1/campaigns', {
    schema: { summary: 'Create a campaign (a draft)', tags, body: CampaignCreateSchema, response: { 201: CampaignViewSchema, ...invalid, ...noSuchCampaign, ...audienceErrors } },
    config: write,
  }, async (request, reply) => sendResult(reply, await createCampaign(deps, callerOf(request).account.id, request.body, sendingMode(request)), 201));

  app.get<{ Querystring: { status?: string } }>('/v1/campaigns', {
    schema: {
      summary: 'The account\'s campaigns, newest first', tags,
      querystring: { type: 'object', properties: { status: { type: 'string', enum: [...CAMPAIGN_STATUSES] } } },
      response: { 200: CampaignCollectionSchema, ...invalid, ...audienceErrors },
    },
    config: read,
  }, async (request, reply) => {
    const status = request.query.status;
    if (status !== undefined && !(CAMPAIGN_STATUSES as readonly string[]).includes(status)) {
      return sendRejection(reply, { code: 'invalidField', detail: `status must be one of: ${CAMPAIGN_STATUSES.join(', ')}` });
    }
    return listAccountCampaigns(deps, callerOf(request).account.id, status as CampaignStatus | undefined);
  });

  app.get<CampaignParams>('/v1/campaigns/:campaign_id', {
    schema: { summary: 'One campaign', tags, params, response: { 200: CampaignViewSchema, ...noSuchCampaign, ...audienceErrors } },
    config: read,
  }, async (request, reply) => sendResult(reply, await getCampaign(deps, callerOf(request).account.id, request.params.campaign_id)));

  app.patch<CampaignParams>('/v1/campaigns/:campaign_id', {
    schema: {
      summary: 'Change a campaign (the fields given) while draft, scheduled or paused; the audience only while draft', tags, params, body: CampaignPatchSchema,
      response: { 200: CampaignViewSchema, ...invalid, ...noSuchCampaign, ...wrongState, ...audienceErrors },
    },
    config: write, preValidation: testCampaignsOnly,
  }, async (request, reply) => sendResult(reply, await patchCampaign(deps, callerOf(request).account.id, request.params.campaign_id, request.body)));

  app.delete<CampaignParams>('/v1/campaigns/:campaign_id', {
    schema: { summary: 'Delete a draft', tags, params, response: { 204: { description: 'Deleted', type: 'null' }, ...noSuchCampaign, ...wrongState, ...audienceErrors } },
    config: write, preValidation: testCampaignsOnly,
  }, async (request, reply) => sendResult(reply, await removeCampaign(deps, callerOf(request).account.id, request.params.campaign_id), 204));

  app.get<CampaignParams>('/v1/campaigns/:campaign_id/quote', {
    schema: { summary: 'Who the campaign would reach now, who not and why, and what it costs', tags, params, response: { 200: QuoteSchema, ...noSuchCampaign, ...audienceErrors } },
    config: read,
  }, async (request, reply) => sendResult(reply, await quoteCampaign(deps, callerOf(request).account.id, request.params.campaign_id)));

  app.post<CampaignParams>('/v1/campaigns/:campaign_id/send', {
    schema: {
      summary: 'Send a draft: now (running) or at send_at (scheduled); debits one message per recipient, or refuses whole', tags, params,
      headers: idempotencyDocs.headers,
      response: {
        200: { ...CampaignViewSchema, headers: idempotencyDocs.replayHeaders }, 400: { description: '`The campaign has no recipients`, the content no longer renders, or an invalid `Idempotency-Key`' }, ...noSuchCampaign, ...audienceErrors,
        ...idempotencyDocs.responses,
        // Two 409s: the campaign's status (with `status`), or its Idempotency-Key still in use (`message` only).
        409: {
          description: `${wrongState[409].description}; or ${idempotencyDocs.responses[409].description}`,
          type: 'object', required: ['message'], properties: wrongState[409].properties,
        },
      },
    },
    config: write, preValidation: testCampaignsOnly,
  }, async (request, reply) => {
    const result = await sendWithIdempotencyKey(deps, request, reply, (sendDeps) => sendCampaign(sendDeps, callerOf(request).account.id, request.params.campaign_id));
    return result === REPLAYED ? reply : sendResult(reply, result);
  });

  for (const action of ['pause', 'resume', 'cancel'] as const) {
    app.post<CampaignParams>(`/v1/campaigns/:campaign_id/${action}`, {
      schema: {
        summary: { pause: 'Pause a running campaign', resume: 'Resume a paused campaign', cancel: 'Cancel a scheduled, running or paused campaign; what was never sent is refunded' }[action],
        tags, params, response: { 200: CampaignViewSchema, ...noSuchCampaign, ...wrongState, ...audienceErrors },
      },
      config: write, preValidation: testCampaignsOnly,
    }, async (request, reply) => sendResult(reply, await moveCampaignTo(deps, callerOf(request).account.id, request.params.campaign_id, action)));
  }

  app.post<CampaignParams & { Body: TestSendRequest }>('/v1/campaigns/:campaign_id/test', {
    schema: {
      summary: 'Send the campaign\'s content to up to 10 addresses, billed as ordinary emails, marked as tests', tags, params, body: TestSendSchema,
      response: {
        200: { type: 'object', properties: { to: { type: 'array', items: { type: 'object', properties: { email: { type: 'string' }, msgid: { type: 'string' } } } } } },
        ...invalid, ...noSuchCampaign, ...audienceErrors,
      },
    },
    config: write,
  }, async (request, reply) => sendResult(reply, await sendCampaignTest(deps, callerOf(request).account.id, request.params.campaign_id, request.body, sendingMode(request))));

  app.post<CampaignParams & { Body: ResendRequest }>('/v1/campaigns/:campaign_id/resend', {
    schema: {
      summary: 'A follow-up draft to the contacts who did not open (human opens only) or did not click', tags, params, body: ResendSchema,
      response: { 201: CampaignViewSchema, ...invalid, ...noSuchCampaign, ...wrongState, ...audienceErrors },
    },
    config: write, preValidation: testCampaignsOnly,
  }, async (request, reply) => sendResult(reply, await resendCampaign(deps, callerOf(request).account.id, request.params.campaign_id, request.body), 201));

  app.get<CampaignParams>('/v1/campaigns/:campaign_id/stats', {
    schema: { summary: 'The campaign\'s counts, equal to the webhook events of its messages', tags, params, response: { 200: StatsSchema, ...noSuchCampaign, ...audienceErrors } },
    config: read,
  }, async (request, reply) => sendResult(reply, await campaignStats(deps, callerOf(request).account.id, request.params.campaign_id)));

  app.get<CampaignParams & { Querystring: unknown }>('/v1/campaigns/:campaign_id/stats/timeline', {
    schema: {
      summary: 'Human opens and clicks over time', tags, params, querystring: TimelineQuerySchema,
      response: { 200: TimelineSchema, ...invalid, ...noSuchCampaign, ...audienceErrors },
    },
    config: read,
  }, async (request, reply) => sendResult(reply, await campaignTimeline(deps, callerOf(request).account.id, request.params.campaign_id, request.query)));

  app.get<CampaignParams & { Querystring: unknown }>('/v1/campaigns/:campaign_id/recipients', {
    schema: {
      summary: 'Who got what: the campaign\'s messages in contact order, with their msgids', tags, params, querystring: RecipientQuerySchema,
      response: { 200: RecipientPageSchema, ...invalid, ...noSuchCampaign, ...audienceErrors },
    },
    config: read,
  }, async (request, reply) => sendResult(reply, await listCampaignRecipients(deps, callerOf(request).account.id, request.params.campaign_id, request.query)));

  app.get<{ Params: { name: string } }>('/v1/campaigns/tags/:name/stats', {
    schema: {
      summary: 'The same counts for the POST /v1/email sends that carried `campaign: name`', tags,
      params: idParams('name', 'The `campaign` field the sends carried'), response: { 200: StatsSchema, ...audienceErrors },
    },
    config: read,
  }, async (request) => tagStats(deps, callerOf(request).account.id, request.params.name));
}
