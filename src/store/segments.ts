import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { fieldRef, type Filter, type SegmentRequest } from '../campaigns/segment-filter.ts';
import type { Db } from './database.ts';
import { querySql } from './dialect.ts';
import type { QuerySql } from './query-sql.ts';
import { toContact, type Contact } from './contacts.ts';
import { boundedContactSums, nthContactId, rangeCondition } from './heavy-read.ts';

// A segment as SQL: the account's contacts with a confirmed subscription to one of
// `lists`, on none of `exclude_lists` (any status), matching the filter. Count it
// (POST /v1/segments/count) or walk it in id order a page at a time (the campaign
// runner's keyset: `after` the last id of the previous page), never the whole set at
// once. The list probes use list_members_contact (contact_id, list_id, status); the
// engagement probes use messages_contact / messages_campaign_contact and
// message_events_message. Every leaf predicate is two-valued (a missing attribute
// makes `eq` false, and so `neq` and `not` true), as docs/campaigns.md says.

const DAY_MS = 86_400_000;

/** Statuses of a campaign message that reached the recipient's side (for `not_opened`). */
const RECEIVED = ['sent', 'delivered'] as const;

interface Compiler {
  readonly q: QuerySql;
  readonly now: number;
}

const TRUE = sql<SqlBool>`(1 = 1)`;
const FALSE = sql<SqlBool>`(1 = 0)`;
const two = (predicate: RawBuilder<SqlBool>): RawBuilder<SqlBool> => sql<SqlBool>`coalesce(${predicate}, ${FALSE})`;
const ids = (values: readonly string[]) => sql.join(values.map((v) => sql`${v}`));

/** The WHERE clause of a segment over `contacts as c`. */
function segmentWhere(db: Db, accountId: string, segment: SegmentRequest, now: number): RawBuilder<SqlBool> {
  const compiler: Compiler = { q: querySql(db), now };
  const excluded = segment.exclude_lists ?? [];
  const parts = [
    sql<SqlBool>`c.account_id = ${accountId}`,
    sql<SqlBool>`exists (select 1 from list_members m where m.contact_id = c.id and m.list_id in (${ids(segment.lists)}) and m.status = 'confirmed')`,
    excluded.length === 0 ? TRUE : sql<SqlBool>`not exists (select 1 from list_members x where x.contact_id = c.id and x.list_id in (${ids(excluded)}))`,
    segment.filter === undefined ? TRUE : predicate(compiler, segment.filter),
  ];
  return sql<SqlBool>`${sql.join(parts, sql` and `)}`;
}

/** How many contacts the segment holds now, read within `timeoutMs` (store/heavy-read.ts). */
export async function countSegment(db: Db, accountId: string, segment: SegmentRequest, now: number, timeoutMs: number): Promise<number> {
  const where = segmentWhere(db, accountId, segment, now);
  const [n] = await boundedContactSums(db, accountId, timeoutMs, async (executor, range) => {
    const { rows } = await sql<{ n: number }>`select count(*) as n from contacts c where ${where} and ${rangeCondition(range)}`.execute(executor);
    return [Number(rows[0]?.n ?? 0)];
  });
  return n ?? 0;
}

/**
 * Contacts one page read looks through at most: a sparse segment (a narrow filter over
 * many contacts) would otherwise have one statement scan the account to fill a page,
 * holding the SQLite event loop or a PostgreSQL connection for as long as that takes.
 */
export const SEGMENT_SCAN_WINDOW = 5000;

/** A page of a segment and how far through the account's contacts it looked. */
export interface SegmentPage {
  readonly contacts: Contact[];
  /** The id the next page starts after; null: the account's last contact was looked at. */
  readonly scannedTo: string | null;
}

/**
 * The segment's next contacts after `after` (a contact id; undefined: from the start), in
 * id order: at most `limit`, among the next `scan` (SEGMENT_SCAN_WINDOW) contacts of the account
 * only, so a page may be short (even empty) before the end: `scannedTo` says where it stopped.
 */
export async function segmentPage(db: Db, accountId: string, segment: SegmentRequest, page: { after?: string; limit: number; scan?: number }, now: number): Promise<SegmentPage> {
  const upTo = await nthContactId(db, accountId, page.after, page.scan ?? SEGMENT_SCAN_WINDOW);
  const range = rangeCondition({ ...(page.after === undefined ? {} : { after: page.after }), ...(upTo === undefined ? {} : { upTo }) });
  const { rows } = await sql<{ id: string; account_id: string; email: string; name: string | null; attributes: string; created_at: number; updated_at: number }>`
    select c.id, c.account_id, c.email, c.name, c.attributes, c.created_at, c.updated_at from contacts c
    where ${segmentWhere(db, accountId, segment, now)} and ${range}
    order by c.id limit ${page.limit}`.execute(db);
  const contacts = rows.map(toContact);
  const last = contacts.at(-1);
  return { contacts, scannedTo: contacts.length === page.limit && last !== undefined ? last.id : (upTo ?? null) };
}

function predicate(c: Compiler, filter: Filter): RawBuilder<SqlBool> {
  if ('and' in filter) return sql<SqlBool>`(${sql.join(filter.and.map((f) => predicate(c, f)), sql` and `)})`;
  if ('or' in filter) return sql<SqlBool>`(${sql.join(filter.or.map((f) => predicate(c, f)), sql` or `)})`;
  if ('not' in filter) return sql<SqlBool>`(not ${predicate(c, filter.not)})`;
  if ('opened' in filter) return engaged(c, filter.opened, 'opened');
  if ('clicked' in filter) return engaged(c, filter.clicked, 'clicked');
  if ('not_opened' in filter) {
    return sql<SqlBool>`exists (select 1 from messages nm where nm.contact_id = c.id and nm.account_id = c.account_id
      and nm.campaign_id = ${filter.not_opened} and nm.status in (${ids(RECEIVED)}))
      and not ${engaged(c, filter.not_opened, 'opened')}`;
  }
  if ('delivered_within' in filter) {
    const since = c.now - filter.delivered_within * DAY_MS;
    return sql<SqlBool>`exists (select 1 from messages dm where dm.contact_id = c.id and dm.account_id = c.account_id
      and exists (select 1 from message_events de where de.message_id = dm.id and de.type = 'delivered' and de.at >= ${since}))`;
  }
  return fieldPredicate(c, filter);
}

/** A human (not machine) open or click of the campaign's message to the contact. */
function engaged(c: Compiler, campaignId: string, type: 'opened' | 'clicked'): RawBuilder<SqlBool> {
  return sql<SqlBool>`exists (select 1 from messages em where em.contact_id = c.id and em.account_id = c.account_id and em.campaign_id = ${campaignId}
    and exists (select 1 from message_events ee where ee.message_id = em.id and ee.type = ${type} and ${c.q.isFalse(sql.ref('ee.data'), 'machine')}))`;
}

type FieldFilter = Extract<Filter, { field: string }>;
type Scalar = string | number | boolean;

/** A contact column or an attribute, as the typed values a predicate compares. */
interface Operand {
  text: Expression<string | null>;
  number: Expression<number | null> | undefined;
  type: Expression<string | null> | undefined;
  arrayHasText: ((value: string) => RawBuilder<SqlBool>) | undefined;
  /** Emails are stored lower-cased: compare the value lower-cased too. */
  lower: boolean;
}

function operandOf(c: Compiler, field: string): Operand {
  const ref = fieldRef(field);
  if (ref === undefined) throw new TypeError(`filter field ${field} was not checked`);
  if (ref.kind === 'column') {
    if (ref.column === 'created_at') return { text: sql<string | null>`null`, number: sql.ref<number>('c.created_at'), type: undefined, arrayHasText: undefined, lower: false };
    return { text: sql.ref<string | null>(`c.${ref.column}`), number: undefined, type: undefined, arrayHasText: undefined, lower: ref.column === 'email' };
  }
  const json = sql.ref<string>('c.attributes');
  return {
    text: c.q.textAt(json, ref.path), number: c.q.numberAt(json, ref.path), type: c.q.typeAt(json, ref.path),
    arrayHasText: (value) => c.q.arrayHasText(json, ref.path, value), lower: false,
  };
}

function equals(o: Operand, value: Scalar): RawBuilder<SqlBool> {
  if (typeof value === 'string') return sql<SqlBool>`${o.text} = ${o.lower ? value.toLowerCase() : value}`;
  if (typeof value === 'number') return o.number === undefined ? FALSE : sql<SqlBool>`${o.number} = ${value}`;
  return o.type === undefined ? FALSE : sql<SqlBool>`${o.type} = ${value ? 'true' : 'false'}`;
}

function fieldPredicate(c: Compiler, filter: FieldFilter): RawBuilder<SqlBool> {
  const o = operandOf(c, filter.field);
  if ('eq' in filter) return two(equals(o, filter.eq));
  if ('neq' in filter) return sql<SqlBool>`(not ${two(equals(o, filter.neq))})`;
  if ('in' in filter) return two(sql<SqlBool>`(${sql.join(filter.in.map((v) => equals(o, v)), sql` or `)})`);
  if ('exists' in filter) {
    const present = o.type === undefined ? sql<SqlBool>`${o.text} is not null` : sql<SqlBool>`${o.type} is not null and ${o.type} <> 'null'`;
    return filter.exists ? two(present) : sql<SqlBool>`(not ${two(present)})`;
  }
  if ('contains' in filter) {
    const inText = c.q.containsText(o.text, filter.contains);
    return two(o.arrayHasText === undefined ? inText : sql<SqlBool>`(${inText} or ${o.arrayHasText(filter.contains)})`);
  }
  const [bound, op] = 'gt' in filter ? [filter.gt, sql.raw('>')] : [filter.lt, sql.raw('<')];
  if (typeof bound === 'number') return o.number === undefined ? FALSE : two(sql<SqlBool>`${o.number} ${op} ${bound}`);
  // created_at compares as a time; text compares byte by byte (ISO dates order correctly).
  if (o.type === undefined && o.number !== undefined) return two(sql<SqlBool>`${o.number} ${op} ${Date.parse(bound)}`);
  return two(sql<SqlBool>`${c.q.bytewise(o.text)} ${op} ${bound}`);
}

/** How many of the segment's contacts the account suppresses (the campaign quote subtracts them), read within `timeoutMs`. */
export async function countSegmentSuppressed(db: Db, accountId: string, segment: SegmentRequest, now: number, timeoutMs: number): Promise<number> {
  const where = segmentWhere(db, accountId, segment, now);
  const [n] = await boundedContactSums(db, accountId, timeoutMs, async (executor, range) => {
    const { rows } = await sql<{ n: number }>`select count(*) as n from contacts c where ${where} and ${rangeCondition(range)}
      and exists (select 1 from suppressions s where s.account_id = c.account_id and s.address = c.email)`.execute(executor);
    return [Number(rows[0]?.n ?? 0)];
  });
  return n ?? 0;
}

/**
 * The contacts on any of `lists` by their best subscription there: confirmed,
 * else unconfirmed, else unsubscribed (the quote's "unconfirmed" and "unsubscribed").
 */
export async function countByBestSubscription(
  db: Db, accountId: string, lists: readonly string[], timeoutMs: number,
): Promise<{ confirmed: number; unconfirmed: number; unsubscribed: number }> {
  const [unsubscribed = 0, unconfirmed = 0, confirmed = 0] = await boundedContactSums(db, accountId, timeoutMs, async (executor, range) => {
    const { rows } = await sql<{ rank: number; n: number }>`
      select best.rank as rank, count(*) as n from (
        select m.contact_id, max(case m.status when 'confirmed' then 2 when 'unconfirmed' then 1 else 0 end) as rank
        from list_members m join lists l on l.id = m.list_id
        where l.account_id = ${accountId} and m.list_id in (${ids(lists)}) and ${rangeCondition(range, 'm.contact_id')}
        group by m.contact_id) best
      group by best.rank`.execute(executor);
    return [0, 1, 2].map((rank) => Number(rows.find((r) => Number(r.rank) === rank)?.n ?? 0));
  });
  return { confirmed, unconfirmed, unsubscribed };
}
