// Campaigns (/v1/campaigns, issue 13): the list, one campaign, its moves, its report and
// recipients, and the counts of sends tagged with a campaign name. Fetchers and query
// keys live here so every page asks for the same thing under the same key.
import { api } from './http.ts';
import type {
  CampaignInput, CampaignStatus, CampaignView, Quote, RecipientPage, RenderInput, ResendTarget, Stats, Timeline,
} from './types.ts';

// The server's lists, repeated as values (importing them would bundle TypeBox); `satisfies` keeps them in step.
export const CAMPAIGN_STATUSES = ['draft', 'scheduled', 'running', 'paused', 'finished', 'cancelled'] as const satisfies readonly CampaignStatus[];
export const RESEND_TARGETS = [
  { value: 'not_opened', label: 'Who did not open it' },
  { value: 'not_clicked', label: 'Who did not click in it' },
] as const satisfies readonly { value: ResendTarget; label: string }[];
/** The recipients listing's statuses (a message's own). */
export const RECIPIENT_STATUSES = ['queued', 'sending', 'deferred', 'sent', 'delivered', 'failed', 'bounced', 'dropped'] as const;

/** Statuses in which herald is still working on the campaign: its pages poll. */
export const LIVE_STATUSES: readonly CampaignStatus[] = ['scheduled', 'running', 'paused'];

export const RECIPIENT_PAGE = 50;

/** The moves a campaign's status allows (POST /v1/campaigns/:id/<move>). */
export type Move = 'send' | 'pause' | 'resume' | 'cancel';

const campaignPath = (campaignId: string, tail = ''): string => `/v1/campaigns/${encodeURIComponent(campaignId)}${tail}`;

export const campaignKeys = {
  all: ['campaigns'],
  list: (status: CampaignStatus | undefined) => ['campaigns', status ?? 'all'],
  detail: (campaignId: string) => ['campaign', campaignId],
  quote: (campaignId: string) => ['campaign-quote', campaignId],
  stats: (campaignId: string) => ['campaign-stats', campaignId],
  timeline: (campaignId: string, interval: string) => ['campaign-timeline', campaignId, interval],
  recipients: (campaignId: string, status: string, cursor: string | undefined) => ['campaign-recipients', campaignId, status, cursor],
  preview: (input: RenderInput | undefined) => ['campaign-preview', input],
  tagStats: (name: string | undefined) => ['tag-stats', name],
} as const;

export const campaignsQuery = (status: CampaignStatus | undefined) => ({
  queryKey: campaignKeys.list(status),
  queryFn: () => api<{ campaigns: CampaignView[] }>('/v1/campaigns', { query: { status } }),
}) as const;

export const campaignQuery = (campaignId: string) => ({
  queryKey: campaignKeys.detail(campaignId),
  queryFn: () => api<CampaignView>(campaignPath(campaignId)),
}) as const;

export const createCampaign = (body: Partial<CampaignInput>) => api<CampaignView>('/v1/campaigns', { method: 'POST', body });

export const updateCampaign = (campaignId: string, body: Partial<CampaignInput>) => api<CampaignView>(campaignPath(campaignId), { method: 'PATCH', body });

export const deleteCampaign = (campaignId: string) => api<undefined>(campaignPath(campaignId), { method: 'DELETE' });

export const moveCampaign = (campaignId: string, move: Move) => api<CampaignView>(campaignPath(campaignId, `/${move}`), { method: 'POST' });

export const quoteQuery = (campaignId: string) => ({
  queryKey: campaignKeys.quote(campaignId),
  queryFn: () => api<Quote>(campaignPath(campaignId, '/quote')),
}) as const;

export const sendCampaignTest = (campaignId: string, emails: readonly string[]) =>
  api<{ to: { email: string; msgid: string }[] }>(campaignPath(campaignId, '/test'), { method: 'POST', body: { emails } });

/** A new draft for the recipients who did not open (or click): the follow-up. */
export const resendCampaign = (campaignId: string, body: { to: ResendTarget; subject?: string }) =>
  api<CampaignView>(campaignPath(campaignId, '/resend'), { method: 'POST', body });

export const statsQuery = (campaignId: string) => ({
  queryKey: campaignKeys.stats(campaignId),
  queryFn: () => api<Stats>(campaignPath(campaignId, '/stats')),
}) as const;

export const timelineQuery = (campaignId: string, interval: 'hour' | 'day') => ({
  queryKey: campaignKeys.timeline(campaignId, interval),
  queryFn: () => api<Timeline>(campaignPath(campaignId, '/stats/timeline'), { query: { interval } }),
}) as const;

export const fetchRecipients = (campaignId: string, status: string, cursor: string | undefined) =>
  api<RecipientPage>(campaignPath(campaignId, '/recipients'), { query: { status, cursor, limit: RECIPIENT_PAGE } });

/** The counts of the POST /v1/email sends that carried `campaign: <name>`. */
export const tagStatsQuery = (name: string | undefined) => ({
  queryKey: campaignKeys.tagStats(name),
  queryFn: () => api<Stats>(`/v1/campaigns/tags/${encodeURIComponent(name ?? '')}/stats`),
}) as const;
