import { campaignSource, type CampaignSource } from '../campaigns/campaign-content.ts';
import {
  CampaignOwnFieldsShape, CampaignPatchOwnShape, DEFAULT_MESSAGES_PER_MINUTE_PER_DOMAIN, type CampaignStatus, type CampaignView, type Quote,
} from '../campaigns/campaign-shapes.ts';
import { parseFilter, segmentOf, type Filter, type SegmentRequest } from '../campaigns/segment-filter.ts';
import { domainOf } from '../domain/email-address.ts';
import { looksLikeHtml, parseEmailContentFields, type EmailContent, type NamedAddress } from '../domain/email-request.ts';
import type { RequestLimits } from '../domain/request-limits.ts';
import { isJsonObject, ownField, type JsonObject } from '../domain/json-object.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import { checkValue } from '../domain/schema-check.ts';
import { findAccount } from '../store/accounts.ts';
import {
  deleteDraft, findCampaign, insertCampaign, listCampaigns, updateCampaignFields, type Campaign, type CampaignFields,
} from '../store/campaigns.ts';
import type { KeyMode } from '../domain/key-mode.ts';
import { costOf } from './send-charge.ts';
import { findEmailTemplate, type EmailTemplate } from '../store/email-templates.ts';
import { isStoreUnavailable } from '../store/store-unavailable.ts';
import { findLists } from '../store/lists.ts';
import { countByBestSubscription, countSegment, countSegmentSuppressed } from '../store/segments.ts';
import { findSenderDomain } from '../store/sender-domains.ts';
import type { AppDeps } from './deps.ts';
import { readBudget, withinReadLimit } from './heavy-reads.ts';

// /v1/campaigns: create, read, change and delete campaigns, and quote their audience.
// The content fields (from, replyTo, subject, body | template_id, variables) are checked
// by POST /v1/email's own parser, so they answer with the interface's texts in its
// order; herald's own fields then by their TypeBox shape (campaigns/campaign-shapes.ts).
// Sending, pausing, tests and follow-ups are app/send-campaign.ts.

/** Most campaigns GET /v1/campaigns answers (newest first). */
export const MAX_CAMPAIGNS_LISTED = 1000;

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const invalid = (detail: string) => reject('invalidField', { detail });

export function campaignView(c: Campaign): CampaignView {
  return {
    campaign_id: c.id, name: c.name, status: c.status, subject: c.subject, from: c.from, replyTo: c.replyTo, body: c.body,
    template_id: c.templateId, variables: c.variables, lists: [...c.lists], exclude_lists: [...c.excludeLists], filter: c.filter,
    send_at: iso(c.sendAt), messages_per_minute: c.messagesPerMinute, messages_per_minute_per_domain: c.messagesPerMinutePerDomain,
    follows: c.follows === null ? null : { campaign_id: c.follows.campaignId, to: c.follows.to },
    recipients: c.billed, created_at: iso(c.createdAt) ?? '', updated_at: iso(c.updatedAt) ?? '',
    started_at: iso(c.startedAt), finished_at: iso(c.finishedAt),
    ...(c.mode === 'test' ? { mode: 'test' as const } : {}),
  };
}

const contentOf = (c: Pick<CampaignFields, 'body' | 'templateId' | 'variables'>): EmailContent =>
  (c.templateId !== null ? { mode: 'template', templateId: c.templateId, variables: c.variables } : { mode: 'direct', body: c.body ?? '' });

/** The content fields of a body as POST /v1/email reads them. */
function parseContentFields(body: JsonObject, limits: RequestLimits): Result<Pick<CampaignFields, 'subject' | 'from' | 'replyTo' | 'body' | 'templateId' | 'variables'>> {
  const parsed = parseEmailContentFields(body, limits);
  if (!parsed.ok) return parsed;
  const { from, replyTo, subject, content } = parsed.value;
  return ok({
    subject, from, replyTo,
    body: content.mode === 'direct' ? content.body : null,
    templateId: content.mode === 'template' ? content.templateId : null,
    variables: content.mode === 'template' ? { ...content.variables } : {},
  });
}

/** herald's own fields, checked by shape; the filter node by node. */
function parseOwnFields(body: JsonObject, partial: boolean): Result<Partial<Pick<CampaignFields, 'name' | 'lists' | 'excludeLists' | 'filter' | 'sendAt' | 'messagesPerMinute' | 'messagesPerMinutePerDomain'>>> {
  const checked = checkValue(partial ? CampaignPatchOwnShape : CampaignOwnFieldsShape, body, '');
  if (!checked.ok) return checked;
  const own = checked.value;
  let filter: Filter | null | undefined = own.filter === undefined ? undefined : null;
  if (own.filter !== undefined && own.filter !== null) {
    const parsed = parseFilter(own.filter);
    if (!parsed.ok) return parsed;
    filter = parsed.value;
  }
  if (own.name !== undefined && own.name.trim() === '') return invalid('name must be 1 to 200 characters');
  if (typeof own.send_at === 'string' && !Number.isFinite(Date.parse(own.send_at))) return invalid('send_at must be an ISO-8601 time');
  return ok({
    ...(own.name === undefined ? {} : { name: own.name.trim() }),
    ...(own.lists === undefined ? {} : { lists: [...new Set(own.lists)] }),
    ...(own.exclude_lists === undefined ? {} : { excludeLists: [...new Set(own.exclude_lists)] }),
    ...(filter === undefined ? {} : { filter }),
    ...(own.send_at === undefined ? {} : { sendAt: own.send_at === null ? null : Date.parse(own.send_at) }),
    ...(own.messages_per_minute === undefined ? {} : { messagesPerMinute: own.messages_per_minute }),
    ...(own.messages_per_minute_per_domain === undefined ? {} : { messagesPerMinutePerDomain: own.messages_per_minute_per_domain }),
  });
}

/** The rules across fields and rows: the lists are the account's, the sender domain verified, the content renders. */
async function checkCampaign(deps: AppDeps, accountId: string, fields: CampaignFields): Promise<Result<CampaignSource>> {
  const found = await findLists(deps.db, accountId, [...fields.lists, ...fields.excludeLists]);
  for (const [field, ids] of [['lists', fields.lists], ['exclude_lists', fields.excludeLists]] as const) {
    const missing = ids.findIndex((id) => !found.has(id));
    if (missing >= 0) return reject('notFound', { detail: `${field}[${missing}] is not a list of this account` });
  }
  const domain = await findSenderDomain(deps.db, accountId, domainOf(fields.from.email));
  if (!domain?.verified) return reject('domainNotPermitted');
  return resolveSource(deps, accountId, fields);
}

/** The content as the campaign's messages will render it (a template read now), with the footer in place. */
export async function resolveSource(deps: AppDeps, accountId: string, fields: Pick<CampaignFields, 'subject' | 'body' | 'templateId' | 'variables'>): Promise<Result<CampaignSource>> {
  const content = contentOf(fields);
  if (content.mode === 'direct') {
    const html = looksLikeHtml(content.body);
    return campaignSource(deps.templates, { subject: fields.subject, html: html ? content.body : null, text: html ? null : content.body });
  }
  let template: EmailTemplate | undefined;
  try {
    template = await findEmailTemplate(deps.db, accountId, content.templateId);
  } catch (error) {
    // The database out is not "Error Fetching Template": the request is answered 503.
    if (isStoreUnavailable(error)) throw error;
    return reject('templateFetchFailed');
  }
  if (template === undefined) return reject('templateNotFound');
  return campaignSource(deps.templates, { subject: fields.subject, html: template.html, text: template.text });
}

/** POST /v1/campaigns: a draft, in the caller's mode (a test key makes a test campaign). */
export async function createCampaign(deps: AppDeps, accountId: string, body: unknown, mode: KeyMode = 'live'): Promise<Result<CampaignView>> {
  if (!isJsonObject(body)) return reject('invalidRequest1');
  const content = parseContentFields(body, deps.limits);
  if (!content.ok) return content;
  const own = parseOwnFields(body, false);
  if (!own.ok) return own;
  const fields: CampaignFields = {
    ...content.value, name: own.value.name ?? '', lists: own.value.lists ?? [], excludeLists: own.value.excludeLists ?? [],
    filter: own.value.filter ?? null, sendAt: own.value.sendAt ?? null, messagesPerMinute: own.value.messagesPerMinute ?? null,
    messagesPerMinutePerDomain: own.value.messagesPerMinutePerDomain === undefined ? DEFAULT_MESSAGES_PER_MINUTE_PER_DOMAIN : own.value.messagesPerMinutePerDomain,
  };
  const checked = await checkCampaign(deps, accountId, fields);
  if (!checked.ok) return checked;
  const id = deps.newId();
  await insertCampaign(deps.db, { ...fields, id, accountId, now: deps.clock(), mode });
  const stored = await findCampaign(deps.db, accountId, id);
  return stored === undefined ? reject('notFound') : ok(campaignView(stored));
}

/** GET /v1/campaigns[?status=] — newest first. */
export async function listAccountCampaigns(deps: AppDeps, accountId: string, status: CampaignStatus | undefined): Promise<{ campaigns: CampaignView[] }> {
  const campaigns = await listCampaigns(deps.db, accountId, { ...(status === undefined ? {} : { status }), limit: MAX_CAMPAIGNS_LISTED });
  return { campaigns: campaigns.map(campaignView) };
}

/** The campaign's mode (live, or test: a test key's), undefined when the account has no such campaign. */
export async function campaignMode(deps: AppDeps, accountId: string, id: string): Promise<KeyMode | undefined> {
  return (await findCampaign(deps.db, accountId, id))?.mode;
}

export async function getCampaign(deps: AppDeps, accountId: string, id: string): Promise<Result<CampaignView>> {
  const campaign = await findCampaign(deps.db, accountId, id);
  return campaign === undefined ? reject('notFound') : ok(campaignView(campaign));
}

/** The statuses in which a campaign may be changed; its audience only as a draft (the send fixed and billed it). */
const EDITABLE: readonly CampaignStatus[] = ['draft', 'scheduled', 'paused'];
const AUDIENCE_FIELDS = ['lists', 'exclude_lists', 'filter'] as const;
const CONTENT_FIELDS = ['subject', 'from', 'replyTo', 'body', 'template_id', 'variables'] as const;

export const wrongState = (c: Pick<Campaign, 'status'>) => reject('campaignState', { status: c.status });

/**
 * PATCH /v1/campaigns/:id — the fields given replace the stored ones. The content
 * fields are checked together as POST /v1/email would (the stored ones fill in what
 * the body leaves out); a sent campaign's new content applies to messages not yet made.
 */
export async function patchCampaign(deps: AppDeps, accountId: string, id: string, body: unknown): Promise<Result<CampaignView>> {
  if (!isJsonObject(body)) return reject('invalidRequest1');
  const campaign = await findCampaign(deps.db, accountId, id);
  if (campaign === undefined) return reject('notFound');
  if (!EDITABLE.includes(campaign.status)) return wrongState(campaign);
  if (campaign.status !== 'draft') {
    const audience = AUDIENCE_FIELDS.find((f) => ownField(body, f) !== undefined);
    if (audience !== undefined) return invalid(`${audience} cannot change once the campaign was sent: its recipients are fixed and billed`);
  }
  let fields: CampaignFields = campaign;
  if (CONTENT_FIELDS.some((f) => ownField(body, f) !== undefined)) {
    const stored = { subject: campaign.subject, from: campaign.from, replyTo: campaign.replyTo, ...(campaign.templateId === null ? { body: campaign.body } : { template_id: campaign.templateId, variables: campaign.variables }) };
    const givesContent = ownField(body, 'body') !== undefined || ownField(body, 'template_id') !== undefined;
    const merged: JsonObject = { ...(givesContent ? { subject: stored.subject, from: stored.from, replyTo: stored.replyTo } : stored), ...pick(body, CONTENT_FIELDS) };
    const content = parseContentFields(merged, deps.limits);
    if (!content.ok) return content;
    fields = { ...fields, ...content.value };
  }
  const own = parseOwnFields(body, true);
  if (!own.ok) return own;
  fields = { ...fields, ...own.value };
  const checked = await checkCampaign(deps, accountId, fields);
  if (!checked.ok) return checked;
  const now = deps.clock();
  // A sent campaign renders its next messages with the new content.
  const changed = await updateCampaignFields(deps.db, { ...fields, id, accountId, ...(campaign.status === 'draft' ? {} : { content: checked.value }) }, EDITABLE, now);
  const after = await findCampaign(deps.db, accountId, id);
  if (after === undefined) return reject('notFound');
  return changed ? ok(campaignView(after)) : wrongState(after);
}

const pick = (body: JsonObject, keys: readonly string[]): JsonObject =>
  Object.fromEntries(keys.flatMap((k) => (ownField(body, k) === undefined ? [] : [[k, ownField(body, k)]])));

/** DELETE /v1/campaigns/:id — drafts only (a sent campaign has messages and a bill). */
export async function removeCampaign(deps: AppDeps, accountId: string, id: string): Promise<Result<null>> {
  if (await deleteDraft(deps.db, accountId, id)) return ok(null);
  const campaign = await findCampaign(deps.db, accountId, id);
  return campaign === undefined ? reject('notFound') : wrongState(campaign);
}

/** The audience now, for the quote and the send; throws HeavyReadTimeout past the read limit (withinReadLimit answers it). */
export async function quoteAudience(deps: AppDeps, campaign: Campaign): Promise<Quote> {
  const now = deps.clock();
  const segment = segmentOf(campaign);
  // One budget for the quote's reads together (HERALD_HEAVY_READ_TIMEOUT_MS): past it, HeavyReadTimeout.
  const budget = readBudget(deps);
  const lists = await countByBestSubscription(deps.db, campaign.accountId, campaign.lists, budget());
  const withoutExcluded = campaign.excludeLists.length === 0 ? lists.confirmed : await countSegment(deps.db, campaign.accountId, { lists: segment.lists }, now, budget());
  const notExcluded = campaign.excludeLists.length === 0
    ? withoutExcluded
    : await countSegment(deps.db, campaign.accountId, { lists: segment.lists, exclude_lists: segment.exclude_lists ?? [] }, now, budget());
  const inSegment = campaign.filter === null ? notExcluded : await countSegment(deps.db, campaign.accountId, segment, now, budget());
  const suppressed = await countSegmentSuppressed(deps.db, campaign.accountId, segment, now, budget());
  const account = await findAccount(deps.db, campaign.accountId);
  const recipients = inSegment - suppressed;
  return {
    recipients,
    excluded: {
      unsubscribed: lists.unsubscribed, unconfirmed: lists.unconfirmed, suppressed,
      excluded_lists: withoutExcluded - notExcluded, filtered: notExcluded - inSegment,
    },
    messages: costOf(campaign.mode, recipients),
    messages_left: account?.messagesLeft ?? 0,
  };
}

/** GET /v1/campaigns/:id/quote — for a sent campaign, the audience as it is now (what a resend would reach). */
export async function quoteCampaign(deps: AppDeps, accountId: string, id: string): Promise<Result<Quote>> {
  const campaign = await findCampaign(deps.db, accountId, id);
  if (campaign === undefined) return reject('notFound');
  return withinReadLimit(deps, () => quoteAudience(deps, campaign));
}

export type { NamedAddress };
