// The marketing pages' side of /v1 (issue 13): lists, contacts and their imports,
// segment counts and campaigns. Shapes are the server's own TypeBox declarations,
// imported as types only (they vanish from the bundle); the fetchers and query keys
// live here so every page asks for the same thing under the same key.
import type { Static } from '@sinclair/typebox';
import type {
  CampaignCreateSchema, CampaignStatus, CampaignView, RecipientPageSchema, ResendTarget, TimelineSchema,
} from '@herald/campaigns/campaign-shapes.ts';
import type { ImportView } from '@herald/campaigns/contact-shapes.ts';
import type { ListView } from '@herald/campaigns/list-shapes.ts';
import type { SegmentRequest } from '@herald/campaigns/segment-filter.ts';
import { api } from './http.ts';

export type { CampaignStatus, CampaignView, Quote, ResendTarget, Stats } from '@herald/campaigns/campaign-shapes.ts';
export type { ConsentEntry, ContactPage, ContactSummary, ContactView, ImportView } from '@herald/campaigns/contact-shapes.ts';
export type { ListCreate, ListCreated, ListPatch, ListView } from '@herald/campaigns/list-shapes.ts';
export type { Filter, SegmentRequest } from '@herald/campaigns/segment-filter.ts';
export type { SubscriptionStatus } from '@herald/campaigns/consent.ts';
export type CampaignInput = Static<typeof CampaignCreateSchema>;
export type Timeline = Static<typeof TimelineSchema>;
export type RecipientPage = Static<typeof RecipientPageSchema>;

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

export const listsQuery = { queryKey: ['lists'], queryFn: () => api<{ lists: ListView[] }>('/v1/lists') } as const;

export const listQuery = (listId: string) => ({
  queryKey: ['list', listId],
  queryFn: () => api<ListView>(`/v1/lists/${encodeURIComponent(listId)}`),
}) as const;

export const campaignsQuery = (status: CampaignStatus | undefined) => ({
  queryKey: ['campaigns', status ?? 'all'],
  queryFn: () => api<{ campaigns: CampaignView[] }>('/v1/campaigns', { query: { status } }),
}) as const;

export const campaignQuery = (campaignId: string) => ({
  queryKey: ['campaign', campaignId],
  queryFn: () => api<CampaignView>(`/v1/campaigns/${encodeURIComponent(campaignId)}`),
}) as const;

export const campaignPath = (campaignId: string, tail = ''): string => `/v1/campaigns/${encodeURIComponent(campaignId)}${tail}`;

export const countSegment = (request: SegmentRequest) => api<{ contacts: number }>('/v1/segments/count', { method: 'POST', body: request });

/** Starts an import of a CSV text or file into a list: herald answers at once with the id to follow. */
export const startImport = (csv: string | Blob, listId: string) => api<{ import_id: string }>('/v1/contacts/imports', {
  method: 'POST', query: { list_id: listId }, text: { body: csv, type: 'text/csv' },
});

export const importQuery = (importId: string) => ({
  queryKey: ['contact-import', importId],
  queryFn: () => api<ImportView>(`/v1/contacts/imports/${encodeURIComponent(importId)}`),
}) as const;
