import { sql, type SelectQueryBuilder } from 'kysely';
import type { Executor } from './database.ts';

// What the live feed (app/live-feed.ts) reads: the rows that tell an account something
// happened, each table in its primary key's order (UUIDv7 ids sort as they were made),
// a bounded page after a cursor. One read per table and turn serves every open stream of
// the process, whichever process wrote the rows. Nothing here reads a message's content.

/** The tables the feed follows by id. */
export const LIVE_SOURCES = ['messages', 'message_events', 'inbound_messages', 'webhook_deliveries', 'webhook_attempts'] as const;
export type LiveSource = (typeof LIVE_SOURCES)[number];

/** One thing that happened, as a stream carries it: ids, a status, a time; never a body. */
export interface LiveEvent {
  readonly type: 'message.created' | 'message.updated' | 'inbound.received' | 'webhook.queued' | 'webhook.attempted' | 'import.updated' | 'campaign.updated';
  readonly at: string;
  readonly [field: string]: string | number | null;
}

export interface LiveRow {
  /** The row's own id: the cursor. */
  readonly id: string;
  readonly accountId: string;
  readonly event: LiveEvent;
}

const iso = (ms: number | bigint | string): string => new Date(Number(ms)).toISOString();

/** The page every read takes: rows after the cursor, in id order, at most `limit`. */
const pageAfter = (column: string, after: string, limit: number) =>
  <DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O> =>
    query.where(sql.ref(column), '>', after).orderBy(sql.ref(column)).limit(limit);

/** Rows as the feed takes them; a row of no account (an inbound message from an unknown number) moves the cursor and reaches nobody. */
const live = <Row extends { readonly id: string; readonly account_id: string | null }>(rows: readonly Row[], eventOf: (row: Row) => LiveEvent): LiveRow[] =>
  rows.map((row) => ({ id: row.id, accountId: row.account_id ?? '', event: eventOf(row) }));

/** Up to `limit` rows of `source` whose id is greater than `after`, in id order. */
export async function readLiveRows(db: Executor, source: LiveSource, after: string, limit: number): Promise<LiveRow[]> {
  switch (source) {
    case 'messages':
      return live(
        await db.selectFrom('messages').select(['id', 'account_id', 'channel', 'status', 'campaign_id', 'created_at']).$call(pageAfter('id', after, limit)).execute(),
        (row) => ({ type: 'message.created', at: iso(row.created_at), message_id: row.id, channel: row.channel, status: row.status, campaign_id: row.campaign_id }),
      );
    case 'message_events':
      return live(
        await db.selectFrom('message_events as e').innerJoin('messages as m', 'm.id', 'e.message_id')
          .select(['e.id', 'm.account_id', 'e.message_id', 'e.type', 'e.at', 'm.channel', 'm.campaign_id']).$call(pageAfter('e.id', after, limit)).execute(),
        (row) => ({ type: 'message.updated', at: iso(row.at), message_id: row.message_id, channel: row.channel, status: row.type, campaign_id: row.campaign_id }),
      );
    case 'inbound_messages':
      return live(
        await db.selectFrom('inbound_messages').select(['id', 'account_id', 'channel', 'received_at']).$call(pageAfter('id', after, limit)).execute(),
        (row) => ({ type: 'inbound.received', at: iso(row.received_at), inbound_id: row.id, channel: row.channel }),
      );
    case 'webhook_deliveries':
      return live(
        await db.selectFrom('webhook_deliveries').select(['id', 'account_id', 'message_id', 'type', 'status', 'created_at']).$call(pageAfter('id', after, limit)).execute(),
        (row) => ({ type: 'webhook.queued', at: iso(row.created_at), delivery_id: row.id, event_type: row.type, status: row.status, message_id: row.message_id }),
      );
    case 'webhook_attempts':
      return live(
        await db.selectFrom('webhook_attempts as a').innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
          .select(['a.id', 'd.account_id', 'a.delivery_id', 'a.status_code', 'a.at', 'd.status', 'd.type']).$call(pageAfter('a.id', after, limit)).execute(),
        (row) => ({ type: 'webhook.attempted', at: iso(row.at), delivery_id: row.delivery_id, event_type: row.type, status: row.status, status_code: row.status_code }),
      );
  }
}

/** The greatest id of `source`, or '' when it is empty: where a feed that starts now begins. */
export async function lastLiveId(db: Executor, source: LiveSource | ActiveSource): Promise<string> {
  const table = source;
  const row = await db.selectFrom(table).select('id').orderBy('id', 'desc').limit(1).executeTakeFirst();
  return row?.id ?? '';
}

/** Of these user sessions, the ids still live (not ended, not past their end, not idle longer than idleMs). */
export async function liveSessionIds(db: Executor, ids: readonly string[], now: number, idleMs: number): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('sessions').select('id')
    .where('id', 'in', ids).where('ended_at', 'is', null).where('expires_at', '>', now).where('last_seen_at', '>', now - idleMs)
    .execute();
  return new Set(rows.map((row) => row.id));
}

/** A row that changes in place (an import, a campaign): followed while it is active, by its updated_at. */
export interface ActiveRow {
  readonly id: string;
  readonly accountId: string;
  readonly updatedAt: number;
  /** Still receiving or running (an import), still with work due (a campaign). */
  readonly active: boolean;
  readonly event: LiveEvent;
}

export type ActiveSource = 'contact_imports' | 'campaigns';

/**
 * The active rows of `source` (imports receiving or running, on contact_imports_status; campaigns
 * with work due, on campaigns_due), at most `limit`; the rows made since the id `after` (on the
 * primary key), so one that began and ended between two turns is seen; and the rows of `ids`
 * whatever their state: the ones active at the last turn, so their last change (finished, failed) is seen too.
 */
export async function readActiveRows(db: Executor, source: ActiveSource, ids: readonly string[], after: string, limit: number): Promise<ActiveRow[]> {
  if (source === 'contact_imports') {
    const columns = ['id', 'account_id', 'status', 'rows', 'created', 'updated', 'rejected', 'updated_at'] as const;
    const active = await db.selectFrom('contact_imports').select(columns).where('status', 'in', ['receiving', 'running']).orderBy('id').limit(limit).execute();
    const made = await db.selectFrom('contact_imports').select(columns).$call(pageAfter('id', after, limit)).execute();
    const known = ids.length === 0 ? [] : await db.selectFrom('contact_imports').select(columns).where('id', 'in', ids).execute();
    return unique([...active, ...made, ...known]).map((row) => ({
      id: row.id, accountId: row.account_id, updatedAt: Number(row.updated_at), active: row.status === 'receiving' || row.status === 'running',
      event: { type: 'import.updated', at: iso(row.updated_at), import_id: row.id, status: row.status, rows: row.rows, created: row.created, updated: row.updated, rejected: row.rejected },
    }));
  }
  const columns = ['id', 'account_id', 'status', 'queued', 'dropped', 'updated_at', 'due_at'] as const;
  const active = await db.selectFrom('campaigns').select(columns).where('due_at', 'is not', null).orderBy('due_at').limit(limit).execute();
  const made = await db.selectFrom('campaigns').select(columns).$call(pageAfter('id', after, limit)).execute();
  const known = ids.length === 0 ? [] : await db.selectFrom('campaigns').select(columns).where('id', 'in', ids).execute();
  return unique([...active, ...made, ...known]).map((row) => ({
    id: row.id, accountId: row.account_id, updatedAt: Number(row.updated_at), active: row.due_at !== null,
    event: { type: 'campaign.updated', at: iso(row.updated_at), campaign_id: row.id, status: row.status, queued: row.queued, dropped: row.dropped },
  }));
}

function unique<Row extends { readonly id: string }>(rows: readonly Row[]): Row[] {
  return [...new Map(rows.map((row) => [row.id, row])).values()];
}
