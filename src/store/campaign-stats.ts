import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from './database.ts';
import { querySql } from './dialect.ts';

// The counts of a campaign's messages, read from their events (message_events, the
// rows whose webhook deliveries were posted), so that the statistics equal the events
// a receiver was sent. One set of queries serves a campaign (messages.campaign_id) and
// an API tag (sends.campaign_name: the `campaign` field of POST /v1/email). Groups are
// named by position: PostgreSQL does not see two parameters of the same value as one
// expression, so an expression repeated in GROUP BY would not match its SELECT twin.

/** Which messages are counted. */
export type MessageSet = { readonly campaignId: string } | { readonly accountId: string; readonly tag: string };

const inSet = (set: MessageSet): RawBuilder<SqlBool> => ('campaignId' in set
  ? sql<SqlBool>`m.campaign_id = ${set.campaignId}`
  : sql<SqlBool>`m.account_id = ${set.accountId} and m.send_id in (select s.id from sends s where s.account_id = ${set.accountId} and s.campaign_name = ${set.tag})`);

export interface EventTally {
  readonly type: string;
  /** Engagements only: a machine (prefetcher, scanner) made it. */
  readonly machine: boolean;
  /** Bounces only: hard | soft. */
  readonly bounceType: string | null;
  readonly events: number;
  readonly messages: number;
}

const COUNTED = ['sent', 'delivered', 'bounced', 'failed', 'dropped', 'opened', 'clicked', 'unsubscribed', 'complained'];

/** Events of the set's messages by type (and machine, bounce type): how many, and of how many messages. */
export async function tallyEvents(db: Db, set: MessageSet): Promise<EventTally[]> {
  const q = querySql(db);
  const data = sql.ref<string>('e.data');
  const { rows } = await sql<{ type: string; machine: number; bounce_type: string | null; events: number; messages: number }>`
    select e.type as type, (case when ${q.isFalse(data, 'machine')} then 0 else 1 end) as machine,
           ${q.textAt(data, ['bounce_type'])} as bounce_type, count(*) as events, count(distinct e.message_id) as messages
    from messages m join message_events e on e.message_id = m.id
    where ${inSet(set)} and e.type in (${sql.join(COUNTED)})
    group by 1, 2, 3`.execute(db);
  return rows.map((r) => ({ type: r.type, machine: Number(r.machine) === 1, bounceType: r.bounce_type, events: Number(r.events), messages: Number(r.messages) }));
}

/** Messages with at least one human (not machine) event of `type`. */
export async function messagesWithHuman(db: Db, set: MessageSet, type: 'opened' | 'clicked'): Promise<number> {
  const q = querySql(db);
  const { rows } = await sql<{ n: number }>`
    select count(distinct e.message_id) as n from messages m join message_events e on e.message_id = m.id
    where ${inSet(set)} and e.type = ${type} and ${q.isFalse(sql.ref<string>('e.data'), 'machine')}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/** Clicks per link (every click event: human and machine), most clicked first. */
export async function clicksByUrl(db: Db, set: MessageSet, limit: number): Promise<{ url: string; clicks: number }[]> {
  const q = querySql(db);
  const url = q.textAt(sql.ref<string>('e.data'), ['url']);
  const { rows } = await sql<{ url: string; clicks: number }>`
    select ${url} as url, count(*) as clicks from messages m join message_events e on e.message_id = m.id
    where ${inSet(set)} and e.type = 'clicked' group by 1 order by 2 desc, 1 limit ${limit}`.execute(db);
  return rows.map((r) => ({ url: r.url, clicks: Number(r.clicks) }));
}

/** The set's messages. */
export async function countMessages(db: Db, set: MessageSet): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*) as n from messages m where ${inSet(set)}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/** Human opens and clicks per time bucket of `bucketMs` (bucket start, epoch ms), oldest first. */
export async function engagementTimeline(db: Db, set: MessageSet, bucketMs: number): Promise<{ at: number; opened: number; clicked: number }[]> {
  const q = querySql(db);
  const { rows } = await sql<{ bucket: number; opened: number; clicked: number }>`
    select e.at - (e.at % ${bucketMs}) as bucket,
           sum(case when e.type = 'opened' then 1 else 0 end) as opened, sum(case when e.type = 'clicked' then 1 else 0 end) as clicked
    from messages m join message_events e on e.message_id = m.id
    where ${inSet(set)} and e.type in ('opened', 'clicked') and ${q.isFalse(sql.ref<string>('e.data'), 'machine')}
    group by 1 order by 1`.execute(db);
  return rows.map((r) => ({ at: Number(r.bucket), opened: Number(r.opened), clicked: Number(r.clicked) }));
}

export interface CampaignRecipient {
  readonly contactId: string;
  readonly email: string;
  readonly msgid: string;
  readonly status: string;
  readonly updatedAt: number;
}

/** A page of the campaign's messages in contact id order after `after` (a contact id), of one status when given. */
export async function campaignRecipients(db: Db, campaignId: string, page: { status?: string; after?: string; limit: number }): Promise<CampaignRecipient[]> {
  const rows = await db.selectFrom('messages').select(['contact_id', 'recipient', 'id', 'status', 'updated_at'])
    .where('campaign_id', '=', campaignId)
    .$if(page.status !== undefined, (qb) => qb.where('status', '=', page.status ?? ''))
    .$if(page.after !== undefined, (qb) => qb.where('contact_id', '>', page.after ?? ''))
    .orderBy('contact_id').limit(page.limit).execute();
  return rows.map((r) => ({ contactId: r.contact_id ?? '', email: r.recipient, msgid: r.id, status: r.status, updatedAt: Number(r.updated_at) }));
}
