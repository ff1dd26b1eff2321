import { sql } from 'kysely';
import type { Channel } from '../domain/account.ts';
import type { Executor } from './database.ts';

// The counts behind /v1/usage: per UTC day and channel, the messages accepted and the
// outcomes recorded. Epoch milliseconds divided by a day's length is the day number on
// both engines (integer division of integers). A test key's messages (docs/sandbox.md) are
// no use of the account: they are left out of every count.

export const DAY_MS = 86_400_000;
/** The outcomes counted; `complained` feeds the complaint rate only. */
export const OUTCOME_TYPES = ['delivered', 'bounced', 'failed', 'complained'] as const;
export type OutcomeType = (typeof OUTCOME_TYPES)[number];

/** Outcomes of messages created this long before the window are still counted on the day they happened. */
const OUTCOME_LAG_MS = 7 * DAY_MS;

export interface DayCount<K> { readonly day: number; readonly channel: Channel; readonly kind: K; readonly count: number }

/** Messages accepted (not dropped, not a cancelled scheduled send: both unbilled in the end) per day and channel, created at or after `since`. */
export async function acceptedPerDay(db: Executor, accountId: string, since: number): Promise<DayCount<'accepted'>[]> {
  const rows = await db
    .selectFrom('messages')
    .select([sql<number>`created_at / ${sql.lit(DAY_MS)}`.as('day'), 'channel', db.fn.countAll<number>().as('n')])
    .where('account_id', '=', accountId)
    .where('mode', '=', 'live')
    .where('created_at', '>=', since)
    .where('status', 'not in', ['dropped', 'cancelled'])
    .groupBy([sql`created_at / ${sql.lit(DAY_MS)}`, 'channel'])
    .execute();
  return rows.map((r) => ({ day: Number(r.day), channel: r.channel as Channel, kind: 'accepted', count: Number(r.n) }));
}

/** Outcome events per day and channel recorded at or after `since` (for messages of the last week before it too). */
export async function outcomesPerDay(db: Executor, accountId: string, since: number): Promise<DayCount<OutcomeType>[]> {
  const rows = await db
    .selectFrom('message_events as e')
    .innerJoin('messages as m', 'm.id', 'e.message_id')
    .select([sql<number>`e.at / ${sql.lit(DAY_MS)}`.as('day'), 'm.channel', 'e.type', db.fn.countAll<number>().as('n')])
    .where('m.account_id', '=', accountId)
    .where('m.mode', '=', 'live')
    .where('m.created_at', '>=', since - OUTCOME_LAG_MS)
    .where('e.at', '>=', since)
    .where('e.type', 'in', OUTCOME_TYPES)
    .groupBy([sql`e.at / ${sql.lit(DAY_MS)}`, 'm.channel', 'e.type'])
    .execute();
  return rows.map((r) => ({ day: Number(r.day), channel: r.channel as Channel, kind: r.type as OutcomeType, count: Number(r.n) }));
}
