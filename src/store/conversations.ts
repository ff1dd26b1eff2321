import { sql } from 'kysely';
import type { Channel } from '../domain/account.ts';
import type { TimeCursor } from '../domain/conversation.ts';
import type { InboundMessage } from '../domain/inbound-message.ts';
import type { Executor } from './database.ts';
import { findInboundMany } from './inbound-messages.ts';

// The conversations view's reads: the people who wrote to an account, newest activity
// first, and one person's thread (herald's messages to them and theirs back). Always
// scoped by account and by the channels the caller may read; live messages only (a test
// key's are listed apart, docs/sandbox.md).

export interface ConversationHead {
  readonly person: string;
  /** The newest of their last message and herald's last message to them (epoch ms). */
  readonly lastAt: number;
}

/**
 * One page of the people who wrote to the account. The inbound side is grouped per sender
 * (index inbound_messages_account_sender); herald's last message to each is one look-up in
 * messages_account_recipient_created. A person is someone who wrote: an address herald only
 * sent to is not a conversation. `recipients` maps a person to the recipients herald's
 * messages name them by (`+` kept for SMS, digits only for WhatsApp) in SQL.
 */
export async function listConversationHeads(
  db: Executor, accountId: string, filter: { channels: readonly Channel[]; after?: TimeCursor | undefined; limit: number },
): Promise<ConversationHead[]> {
  if (filter.channels.length === 0) return [];
  const channels = sql.join([...filter.channels]);
  const after = filter.after;
  const cursor = after === undefined ? sql`` : sql`where last_at < ${after.at} or (last_at = ${after.at} and person < ${after.key})`;
  const result = await sql<{ person: string; last_at: number | string }>`
    select person, last_at from (
      select person, case when last_out is not null and last_out > last_in then last_out else last_in end as last_at from (
        select p.sender as person, p.last_in,
          (select max(m.created_at) from messages m
            where m.account_id = ${accountId} and m.mode = 'live' and m.channel in (${channels})
              and m.recipient in (p.sender, case when p.sender like '+%' then substr(p.sender, 2) else p.sender end)) as last_out
        from (
          select sender, max(received_at) as last_in from inbound_messages
          where account_id = ${accountId} and channel in (${channels}) group by sender
        ) p
      ) q
    ) c ${cursor}
    order by last_at desc, person desc
    limit ${filter.limit}`.execute(db);
  return result.rows.map((row) => ({ person: row.person, lastAt: Number(row.last_at) }));
}

/** The channels each of `people` wrote on or was written to on (of those the caller reads). */
export async function conversationChannels(
  db: Executor, accountId: string, people: readonly { person: string; recipients: readonly string[] }[], channels: readonly Channel[],
): Promise<Map<string, Set<Channel>>> {
  const found = new Map<string, Set<Channel>>(people.map(({ person }) => [person, new Set<Channel>()]));
  if (people.length === 0 || channels.length === 0) return found;
  const inbound = await db.selectFrom('inbound_messages').select(['sender', 'channel']).distinct()
    .where('account_id', '=', accountId).where('sender', 'in', people.map((p) => p.person)).where('channel', 'in', [...channels]).execute();
  for (const row of inbound) found.get(row.sender)?.add(row.channel as Channel);
  const personOf = new Map(people.flatMap(({ person, recipients }) => recipients.map((r) => [r, person] as const)));
  const outbound = await db.selectFrom('messages').select(['recipient', 'channel']).distinct()
    .where('account_id', '=', accountId).where('mode', '=', 'live').where('recipient', 'in', [...personOf.keys()]).where('channel', 'in', [...channels]).execute();
  for (const row of outbound) {
    const person = personOf.get(row.recipient);
    if (person !== undefined) found.get(person)?.add(row.channel as Channel);
  }
  return found;
}

export interface SentItem {
  readonly msgid: string;
  readonly channel: Channel;
  readonly status: string;
  readonly createdAt: number;
  /** The send's stored request content (domain/outbound.ts), parsed. */
  readonly payload: unknown;
}

interface ThreadFilter {
  readonly channels: readonly Channel[];
  /** Only items older than this point, in (time, id) order. */
  readonly before?: TimeCursor | undefined;
  readonly limit: number;
}

/** herald's messages to the person, newest first, with their sends' content (one read of the sends). */
export async function listSentTo(db: Executor, accountId: string, recipients: readonly string[], filter: ThreadFilter): Promise<SentItem[]> {
  if (filter.channels.length === 0) return [];
  const before = filter.before;
  const rows = await db.selectFrom('messages').select(['id', 'send_id', 'channel', 'status', 'created_at'])
    .where('account_id', '=', accountId).where('mode', '=', 'live').where('recipient', 'in', [...recipients]).where('channel', 'in', [...filter.channels])
    .$if(before !== undefined, (q) => q
      .where('created_at', '<=', before?.at ?? 0)
      .where((w) => w.or([w('created_at', '<', before?.at ?? 0), w('id', '<', before?.key ?? '')])))
    .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
  if (rows.length === 0) return [];
  const sends = await db.selectFrom('sends').select(['id', 'payload']).where('id', 'in', [...new Set(rows.map((r) => r.send_id))]).execute();
  const payloads = new Map(sends.map((s) => [s.id, JSON.parse(s.payload) as unknown]));
  return rows.map((r) => ({ msgid: r.id, channel: r.channel as Channel, status: r.status, createdAt: Number(r.created_at), payload: payloads.get(r.send_id) ?? null }));
}

/** What the person wrote to the account, newest first by the time it was received. */
export async function listReceivedFrom(db: Executor, accountId: string, person: string, filter: ThreadFilter): Promise<InboundMessage[]> {
  if (filter.channels.length === 0) return [];
  const before = filter.before;
  const rows = await db.selectFrom('inbound_messages').select('id')
    .where('account_id', '=', accountId).where('sender', '=', person).where('channel', 'in', [...filter.channels])
    .$if(before !== undefined, (q) => q
      .where('received_at', '<=', before?.at ?? 0)
      .where((w) => w.or([w('received_at', '<', before?.at ?? 0), w('id', '<', before?.key ?? '')])))
    .orderBy('received_at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
  return findInboundMany(db, accountId, rows.map((row) => row.id));
}
