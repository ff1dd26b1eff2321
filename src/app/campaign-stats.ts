import { MAX_RECIPIENT_PAGE, DEFAULT_RECIPIENT_PAGE, RecipientQuerySchema, TimelineQuerySchema, type Stats } from '../campaigns/campaign-shapes.ts';
import { isMessageStatus } from '../domain/message-status.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import { checkValue } from '../domain/schema-check.ts';
import { findCampaign } from '../store/campaigns.ts';
import {
  campaignRecipients, clicksByUrl, countMessages, engagementTimeline, messagesWithHuman, tallyEvents, type MessageSet,
} from '../store/campaign-stats.ts';
import type { AppDeps } from './deps.ts';

// A campaign's report (GET /v1/campaigns/:id/stats, …/stats/timeline, …/recipients)
// and the same counts for an API tag (GET /v1/campaigns/tags/:name/stats). Every count
// is read from the messages' events, the rows whose webhook deliveries were posted, so
// a receiver that counted what it was sent finds the same numbers.

const MAX_URLS = 100;
const BUCKET_MS = { hour: 3_600_000, day: 86_400_000 } as const;
const iso = (ms: number): string => new Date(ms).toISOString();

async function statsOf(deps: AppDeps, set: MessageSet): Promise<Stats> {
  const tally = await tallyEvents(deps.db, set);
  const sum = (keep: (t: (typeof tally)[number]) => boolean) => tally.filter(keep).reduce((n, t) => n + t.events, 0);
  return {
    recipients: await countMessages(deps.db, set),
    sent: sum((t) => t.type === 'sent'),
    delivered: sum((t) => t.type === 'delivered'),
    bounced: { hard: sum((t) => t.type === 'bounced' && t.bounceType === 'hard'), soft: sum((t) => t.type === 'bounced' && t.bounceType !== 'hard') },
    failed: sum((t) => t.type === 'failed'),
    dropped: sum((t) => t.type === 'dropped'),
    opened: {
      unique: await messagesWithHuman(deps.db, set, 'opened'),
      human: sum((t) => t.type === 'opened' && !t.machine),
      machine: sum((t) => t.type === 'opened' && t.machine),
    },
    clicked: {
      unique: await messagesWithHuman(deps.db, set, 'clicked'),
      human: sum((t) => t.type === 'clicked' && !t.machine),
      by_url: await clicksByUrl(deps.db, set, MAX_URLS),
    },
    unsubscribed: sum((t) => t.type === 'unsubscribed'),
    complained: sum((t) => t.type === 'complained'),
  };
}

export async function campaignStats(deps: AppDeps, accountId: string, id: string): Promise<Result<Stats>> {
  const campaign = await findCampaign(deps.db, accountId, id);
  return campaign === undefined ? reject('notFound') : ok(await statsOf(deps, { campaignId: id }));
}

/** The counts of the account's POST /v1/email sends that carried `campaign: name` (none: all zero). */
export async function tagStats(deps: AppDeps, accountId: string, name: string): Promise<Stats> {
  return statsOf(deps, { accountId, tag: name });
}

export async function campaignTimeline(deps: AppDeps, accountId: string, id: string, query: unknown): Promise<Result<{ interval: 'hour' | 'day'; points: { at: string; opened: number; clicked: number }[] }>> {
  const checked = checkValue(TimelineQuerySchema, query ?? {}, '');
  if (!checked.ok) return checked;
  const campaign = await findCampaign(deps.db, accountId, id);
  if (campaign === undefined) return reject('notFound');
  const interval = checked.value.interval ?? 'hour';
  const points = await engagementTimeline(deps.db, { campaignId: id }, BUCKET_MS[interval]);
  return ok({ interval, points: points.map((p) => ({ at: iso(p.at), opened: p.opened, clicked: p.clicked })) });
}

export async function listCampaignRecipients(deps: AppDeps, accountId: string, id: string, query: unknown): Promise<Result<{
  recipients: { contact_id: string; email: string; msgid: string; status: string; updated_at: string }[]; next_cursor: string | null;
}>> {
  const checked = checkValue(RecipientQuerySchema, query ?? {}, '');
  if (!checked.ok) return checked;
  const { status, cursor } = checked.value;
  const limit = checked.value.limit === undefined ? DEFAULT_RECIPIENT_PAGE : Number(checked.value.limit);
  if (limit < 1 || limit > MAX_RECIPIENT_PAGE) return reject('invalidField', { detail: `limit must be 1 to ${MAX_RECIPIENT_PAGE}` });
  if (status !== undefined && !isMessageStatus(status)) return reject('invalidField', { detail: 'status must be a message status' });
  const campaign = await findCampaign(deps.db, accountId, id);
  if (campaign === undefined) return reject('notFound');
  const rows = await campaignRecipients(deps.db, id, { ...(status === undefined ? {} : { status }), ...(cursor === undefined ? {} : { after: cursor }), limit: limit + 1 });
  const page = rows.slice(0, limit);
  return ok({
    recipients: page.map((r) => ({ contact_id: r.contactId, email: r.email, msgid: r.msgid, status: r.status, updated_at: iso(r.updatedAt) })),
    next_cursor: rows.length > limit ? (page.at(-1)?.contactId ?? null) : null,
  });
}
