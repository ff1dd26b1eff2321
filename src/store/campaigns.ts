import type { Selectable } from 'kysely';
import type { CampaignStatus, ResendTarget } from '../campaigns/campaign-shapes.ts';
import type { CampaignSource } from '../campaigns/campaign-content.ts';
import type { Filter } from '../campaigns/segment-filter.ts';
import type { NamedAddress } from '../domain/email-request.ts';
import type { KeyMode } from '../domain/key-mode.ts';
import type { CampaignsTable, Executor } from './database.ts';
import { execute, insertAll, insertRows, MAX_IN_LIST, placeholders, queryRows, statement, statementPerCount } from './prepared-statement.ts';

// An account's campaigns, and the campaign runner's bookkeeping on them. The runner
// holds a campaign under a lease (lease_owner, lease_expires_at) while it walks the
// audience; each batch's messages commit together with the campaign's progress
// (cursor, counts, pace) on the condition that the runner still holds the lease and
// the campaign is still `running` (recordBatch), so a runner that lost the lease, or a
// campaign paused or cancelled meanwhile, rolls the batch back. `due_at` says when a
// runner should look at the campaign next: null while nothing is to be done (a draft,
// paused, ended).

export interface Campaign {
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  readonly status: CampaignStatus;
  readonly subject: string;
  readonly from: NamedAddress;
  readonly replyTo: NamedAddress;
  readonly body: string | null;
  readonly templateId: string | null;
  readonly variables: Readonly<Record<string, string>>;
  readonly lists: readonly string[];
  readonly excludeLists: readonly string[];
  readonly filter: Filter | null;
  readonly sendAt: number | null;
  readonly messagesPerMinute: number | null;
  /** At most this many messages a minute to any one recipient domain; null: no per-domain limit. */
  readonly messagesPerMinutePerDomain: number | null;
  readonly follows: { readonly campaignId: string; readonly to: ResendTarget } | null;
  readonly content: CampaignSource | null;
  readonly tracking: { readonly opens: boolean; readonly clicks: boolean };
  readonly cutoff: string | null;
  readonly cursor: string | null;
  readonly walked: boolean;
  readonly billed: number;
  readonly queued: number;
  readonly dropped: number;
  readonly refunded: number;
  readonly nextAt: number | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly startedAt: number | null;
  readonly finishedAt: number | null;
  /** A test key's campaign is a test campaign: its messages are test messages, never billed (docs/sandbox.md). */
  readonly mode: KeyMode;
}

type CampaignRow = Selectable<CampaignsTable>;
const num = (v: number | null): number | null => (v === null ? null : Number(v));

export const toCampaign = (row: CampaignRow): Campaign => ({
  id: row.id, accountId: row.account_id, name: row.name, status: row.status as CampaignStatus, subject: row.subject,
  from: { email: row.from_email, name: row.from_name }, replyTo: { email: row.reply_to_email, name: row.reply_to_name },
  body: row.body, templateId: row.template_id, variables: JSON.parse(row.variables) as Record<string, string>,
  lists: JSON.parse(row.lists) as string[], excludeLists: JSON.parse(row.exclude_lists) as string[],
  filter: row.filter === null ? null : (JSON.parse(row.filter) as Filter), sendAt: num(row.send_at),
  messagesPerMinute: num(row.messages_per_minute), messagesPerMinutePerDomain: num(row.messages_per_minute_per_domain),
  follows: row.parent_id === null ? null : { campaignId: row.parent_id, to: row.resend_to as ResendTarget },
  content: row.content === null ? null : (JSON.parse(row.content) as CampaignSource),
  tracking: { opens: Number(row.track_opens) === 1, clicks: Number(row.track_clicks) === 1 },
  cutoff: row.cutoff, cursor: row.cursor, walked: Number(row.walked) === 1, billed: Number(row.billed), queued: Number(row.queued),
  dropped: Number(row.dropped), refunded: Number(row.refunded), nextAt: num(row.next_at), createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at), startedAt: num(row.started_at), finishedAt: num(row.finished_at),
  mode: row.mode === 'test' ? 'test' : 'live',
});

/** The columns a draft's editable fields fill. */
export type CampaignFields = Pick<Campaign,
  'name' | 'subject' | 'from' | 'replyTo' | 'body' | 'templateId' | 'variables' | 'lists' | 'excludeLists' | 'filter' | 'sendAt' | 'messagesPerMinute' | 'messagesPerMinutePerDomain'>;

const fieldColumns = (c: CampaignFields) => ({
  name: c.name, subject: c.subject, from_email: c.from.email, from_name: c.from.name, reply_to_email: c.replyTo.email,
  reply_to_name: c.replyTo.name, body: c.body, template_id: c.templateId, variables: JSON.stringify(c.variables),
  lists: JSON.stringify(c.lists), exclude_lists: JSON.stringify(c.excludeLists), filter: c.filter === null ? null : JSON.stringify(c.filter),
  send_at: c.sendAt, messages_per_minute: c.messagesPerMinute, messages_per_minute_per_domain: c.messagesPerMinutePerDomain,
});

export async function insertCampaign(
  db: Executor,
  campaign: CampaignFields & { id: string; accountId: string; now: number; follows?: { campaignId: string; to: ResendTarget }; mode?: KeyMode },
): Promise<void> {
  await db.insertInto('campaigns').values({
    id: campaign.id, account_id: campaign.accountId, status: 'draft', ...fieldColumns(campaign), mode: campaign.mode ?? 'live',
    parent_id: campaign.follows?.campaignId ?? null, resend_to: campaign.follows?.to ?? null,
    created_at: campaign.now, updated_at: campaign.now,
  }).execute();
}

export async function findCampaign(db: Executor, accountId: string, id: string): Promise<Campaign | undefined> {
  const [row] = await queryRows<CampaignRow>(db, FIND_CAMPAIGN, [id, accountId]);
  return row && toCampaign(row);
}

const FIND_CAMPAIGN = statement('select * from campaigns where id = $1 and account_id = $2');

/** The account's campaigns, newest first, of one status when given; at most `limit`. */
export async function listCampaigns(db: Executor, accountId: string, query: { status?: CampaignStatus; limit: number }): Promise<Campaign[]> {
  const rows = await db.selectFrom('campaigns').selectAll().where('account_id', '=', accountId)
    .$if(query.status !== undefined, (q) => q.where('status', '=', query.status ?? ''))
    .orderBy('id', 'desc').limit(query.limit).execute();
  return rows.map(toCampaign);
}

/** Replaces the editable fields while the campaign is in one of `statuses`; false when it is not (any more). */
export async function updateCampaignFields(
  db: Executor, campaign: CampaignFields & { id: string; accountId: string; content?: CampaignSource | null }, statuses: readonly CampaignStatus[], now: number,
): Promise<boolean> {
  const result = await db.updateTable('campaigns')
    .set({ ...fieldColumns(campaign), ...(campaign.content === undefined ? {} : { content: campaign.content === null ? null : JSON.stringify(campaign.content) }), updated_at: now })
    .where('id', '=', campaign.id).where('account_id', '=', campaign.accountId).where('status', 'in', [...statuses])
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Deletes a draft; false when the campaign is not (or no longer) a draft. */
export async function deleteDraft(db: Executor, accountId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('campaigns').where('id', '=', id).where('account_id', '=', accountId).where('status', '=', 'draft').executeTakeFirst();
  return result.numDeletedRows === 1n;
}

/**
 * The send: the draft becomes `scheduled` (due at send_at) or `running` (due now)
 * with its content, tracking, cutoff and the messages debited, fixed. False when it is
 * no longer a draft (a second send racing this one): the caller rolls its debit back.
 */
export async function startCampaign(
  db: Executor,
  start: { id: string; accountId: string; status: 'scheduled' | 'running'; content: CampaignSource; tracking: { opens: boolean; clicks: boolean }; cutoff: string; billed: number; dueAt: number; now: number },
): Promise<boolean> {
  return (await execute(db, START_CAMPAIGN, [
    start.status, JSON.stringify(start.content), start.tracking.opens ? 1 : 0, start.tracking.clicks ? 1 : 0, start.cutoff, start.billed,
    start.dueAt, start.now, start.status === 'running' ? start.now : null, start.id, start.accountId,
  ])) === 1;
}

const START_CAMPAIGN = statement(`
  update campaigns set status = $1, content = $2, track_opens = $3, track_clicks = $4, cutoff = $5, billed = $6,
         due_at = $7, next_at = $7, updated_at = $8, started_at = $9
  where id = $10 and account_id = $11 and status = 'draft'`);

/**
 * Moves the campaign from one of `from` to `to` (pause, resume, cancel), with its new
 * due time; answers the row as it was before the move, undefined when it was not in
 * `from`. Call in a transaction: the first statement takes the row's lock, so a
 * runner's batch (recordBatch, conditioned on `running`) either committed before and
 * is in the row read, or waits and then finds the campaign moved and rolls back.
 */
export async function moveCampaign(
  db: Executor, move: { id: string; accountId: string; from: readonly CampaignStatus[]; to: CampaignStatus; dueAt: number | null; now: number },
): Promise<Campaign | undefined> {
  const locked = await db.updateTable('campaigns').set({ updated_at: move.now })
    .where('id', '=', move.id).where('account_id', '=', move.accountId).where('status', 'in', [...move.from]).executeTakeFirst();
  if (locked.numUpdatedRows !== 1n) return undefined;
  const before = await findCampaign(db, move.accountId, move.id);
  if (before === undefined) return undefined;
  await db.updateTable('campaigns')
    .set({
      status: move.to, due_at: move.dueAt,
      ...(move.to === 'cancelled' ? { finished_at: move.now, lease_owner: null, lease_expires_at: null } : {}),
    })
    .where('id', '=', move.id).execute();
  return before;
}

/** Adds to the messages given back (billed at send, never queued). */
export async function markRefunded(db: Executor, id: string, amount: number): Promise<void> {
  await db.updateTable('campaigns').set((eb) => ({ refunded: eb('refunded', '+', amount) })).where('id', '=', id).execute();
}

// ---- the runner's side (its claim and releases: queue/campaigns/claim.ts) ----

/** A scheduled campaign whose time came: `running` from now. False when the runner lost it. */
export async function markRunning(db: Executor, id: string, owner: string, now: number): Promise<boolean> {
  return (await execute(db, MARK_RUNNING, [now, id, owner])) === 1;
}

const MARK_RUNNING = statement(`
  update campaigns set status = 'running', started_at = $1, updated_at = $1
  where id = $2 and lease_owner = $3 and status = 'scheduled'`);

/**
 * A batch's progress, in the transaction that stores its messages. False when `owner`
 * no longer holds the campaign or it is no longer running: roll the batch back.
 */
export async function recordBatch(
  db: Executor,
  batch: { id: string; owner: string; cursor: string | null; queued: number; dropped: number; walked: boolean; nextAt: number; leaseUntil: number; now: number },
): Promise<boolean> {
  return (await execute(db, RECORD_BATCH, [
    batch.cursor, batch.queued, batch.dropped, batch.walked ? 1 : 0, batch.nextAt, batch.leaseUntil, batch.now, batch.id, batch.owner,
  ])) === 1;
}

const RECORD_BATCH = statement(`
  update campaigns set cursor = coalesce($1, cursor), queued = queued + $2, dropped = dropped + $3, walked = $4, next_at = $5,
         lease_expires_at = $6, updated_at = $7
  where id = $8 and lease_owner = $9 and status = 'running'`);

/** Whether any of the campaign's messages still has delivery work (queued, in flight, deferred). */
export async function hasPendingMessages(db: Executor, campaignId: string): Promise<boolean> {
  const rows = await queryRows(db, PENDING, [campaignId]);
  return rows.length > 0;
}

/** How many of the campaign's messages wait in the outbox, counted up to `cap` (the runner's backlog check). */
export async function countPendingMessages(db: Executor, campaignId: string, cap: number): Promise<number> {
  const [row] = await queryRows<{ n: number }>(db, PENDING_UP_TO, [campaignId, cap]);
  return Number(row?.n ?? 0);
}

// The campaign's messages in a status that has delivery work, each confirmed by its
// outbox row (the truth of "work left"), through messages_campaign_status (migration
// 0014): the waiting ones only, not every message the campaign made.
const waiting = (limit: string) => `
  select 1 from messages m
  where m.campaign_id = $1 and m.status in ('queued', 'sending', 'deferred')
    and exists (select 1 from outbox o where o.message_id = m.id)
  limit ${limit}`;
const PENDING_UP_TO = statement(`select count(*) as n from (${waiting('$2')}) pending`);
const PENDING = statement(waiting('1'));

/** Ends a walked campaign whose messages all have their final outcome. False when the runner lost it. */
export async function finishCampaign(db: Executor, id: string, owner: string, now: number): Promise<boolean> {
  return (await execute(db, FINISH, [now, id, owner])) === 1;
}

/**
 * When the campaign's next message to each of `domains` may go (the runner's
 * per-domain pace); a domain it never sent to is absent.
 */
export async function domainPaces(db: Executor, campaignId: string, domains: readonly string[]): Promise<Map<string, number>> {
  const paces = new Map<string, number>();
  for (let i = 0; i < domains.length; i += MAX_IN_LIST) {
    const part = domains.slice(i, i + MAX_IN_LIST);
    const rows = await queryRows<{ domain: string; next_at: number }>(db, domainPacesOf(part.length), [campaignId, ...part]);
    for (const row of rows) paces.set(row.domain, Number(row.next_at));
  }
  return paces;
}

const domainPacesOf = statementPerCount((count) =>
  `select domain, next_at from campaign_domains where campaign_id = $1 and domain in (${placeholders(2, count)})`);

/** Stores the domains' next times (a batch's), in the batch's transaction. */
export async function saveDomainPaces(db: Executor, campaignId: string, paces: ReadonlyMap<string, number>): Promise<void> {
  await insertAll(db, DOMAIN_PACE, [...paces].map(([domain, nextAt]) => [campaignId, domain, nextAt]));
}

const DOMAIN_PACE = insertRows('campaign_domains', ['campaign_id', 'domain', 'next_at'],
  'on conflict (campaign_id, domain) do update set next_at = excluded.next_at');

/** An ended campaign's domain paces: nothing will read them again. */
export async function forgetDomainPaces(db: Executor, campaignId: string): Promise<void> {
  await execute(db, FORGET_DOMAIN_PACES, [campaignId]);
}

const FORGET_DOMAIN_PACES = statement('delete from campaign_domains where campaign_id = $1');

const FINISH = statement(`
  update campaigns set status = 'finished', finished_at = $1, updated_at = $1, due_at = null, lease_owner = null, lease_expires_at = null
  where id = $2 and lease_owner = $3 and status = 'running' and walked = 1`);
