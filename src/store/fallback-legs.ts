import type { Channel } from '../domain/account.ts';
import type { KeyMode } from '../domain/key-mode.ts';
import type { MessageStatus } from '../domain/message-status.ts';
import type { Executor, FallbackLegsTable } from './database.ts';

// The legs of fallback chains after the first (migration 0036; docs/fallback.md). Every
// change of a leg is conditioned on `state = 'waiting'`, so of two processes that decide
// one leg at once only one writes: the other's update finds no row and does nothing.

export type FallbackLegState = 'waiting' | 'released' | 'cancelled';

/** What a send's events carry of its place in a chain (sends.fallback; webhooks' `fallback`). */
export interface FallbackMark {
  readonly chain_id: string;
  readonly leg: number;
  readonly legs: number;
}

export interface FallbackLeg {
  /** The msgid reserved for the leg's message. */
  readonly id: string;
  readonly accountId: string;
  readonly chainId: string;
  readonly sendId: string;
  readonly previousMessageId: string;
  readonly channel: Channel;
  readonly recipient: string;
  readonly payload: unknown;
  readonly options: Readonly<Record<string, unknown>>;
  readonly mode: KeyMode;
  readonly state: FallbackLegState;
  readonly leg: number;
  readonly legs: number;
  readonly afterMs: number;
  readonly reservedMessages: number;
  readonly reservedBalance: number;
  readonly dueAt: number | null;
  readonly requestId: string | null;
}

type NewFallbackLeg = Omit<FallbackLeg, 'state'>;

export async function insertFallbackLeg(db: Executor, leg: NewFallbackLeg, now: number): Promise<void> {
  await db.insertInto('fallback_legs').values({
    id: leg.id, account_id: leg.accountId, chain_id: leg.chainId, send_id: leg.sendId, previous_message_id: leg.previousMessageId,
    channel: leg.channel, recipient: leg.recipient, payload: JSON.stringify(leg.payload), options: JSON.stringify(leg.options), mode: leg.mode,
    state: 'waiting', leg: leg.leg, legs: leg.legs, after_ms: leg.afterMs, reserved_messages: leg.reservedMessages, reserved_balance: leg.reservedBalance,
    due_at: leg.dueAt, request_id: leg.requestId, created_at: now, updated_at: now,
  }).execute();
}

/** Marks a send as a leg of a chain: its events carry the mark from now on. */
export async function markSendInChain(db: Executor, sendId: string, mark: FallbackMark): Promise<void> {
  await db.updateTable('sends').set({ fallback: JSON.stringify(mark) }).where('id', '=', sendId).execute();
}

/** A send's place in a chain, or null. */
export async function sendChainMark(db: Executor, sendId: string): Promise<FallbackMark | null> {
  const row = await db.selectFrom('sends').select('fallback').where('id', '=', sendId).executeTakeFirst();
  return row?.fallback == null ? null : JSON.parse(row.fallback) as FallbackMark;
}

// A previous leg in one of these has its answer: delivered (or a scheduled send cancelled) cancels the next leg, the others release it.
const DECIDED: readonly MessageStatus[] = ['delivered', 'cancelled', 'failed', 'bounced', 'dropped'];

/** Whether a waiting leg can be decided before its time: its previous message has its answer, or is gone. */
export const previousAnswered = (status: MessageStatus | null): boolean => status === null || DECIDED.includes(status);

/** A waiting leg and the status of the message it waits for (null: that message is gone). */
export interface DecidedLeg {
  readonly leg: FallbackLeg;
  readonly previousStatus: MessageStatus | null;
}

/** A place in the waiting legs' order, (due_at, id). */
export interface LegPosition {
  readonly dueAt: number;
  readonly id: string;
}

function waitingWithPrevious(db: Executor) {
  return db.selectFrom('fallback_legs as l')
    .leftJoin('messages as m', 'm.id', 'l.previous_message_id')
    .selectAll('l')
    .select('m.status as previous_status')
    .where('l.state', '=', 'waiting');
}

const decided = (rows: readonly (FallbackLegsTable & { previous_status: string | null })[]): DecidedLeg[] =>
  rows.map((row) => ({ leg: toLeg(row), previousStatus: row.previous_status as MessageStatus | null }));

/** Waiting legs whose time is up, soonest first, at most `limit`: a range of the (state, due_at, id) index. */
export async function dueLegs(db: Executor, now: number, limit: number): Promise<DecidedLeg[]> {
  return decided(await waitingWithPrevious(db).where('l.due_at', '<=', now).orderBy('l.due_at').orderBy('l.id').limit(limit).execute());
}

/** A waiting leg's place in the scan and its previous message's status. */
export interface WaitingLegStatus extends LegPosition {
  readonly previousStatus: MessageStatus | null;
}

/**
 * Up to `limit` waiting legs after `after` in (due_at, id) order (from the first when
 * undefined), each with its previous message's status and nothing else: one slice of the
 * scan that finds the legs whose previous message was answered before their time.
 */
export async function waitingLegsAfter(db: Executor, after: LegPosition | undefined, limit: number): Promise<WaitingLegStatus[]> {
  // Written `due_at >= t and (due_at > t or id > i)`, so both stores take `due_at >= t` as the index bound.
  const slice = await db.selectFrom('fallback_legs')
    .select(['id', 'due_at', 'previous_message_id'])
    .where('state', '=', 'waiting')
    .$if(after !== undefined, (q) => q
      .where('due_at', '>=', after?.dueAt ?? 0)
      .where((w) => w.or([w('due_at', '>', after?.dueAt ?? 0), w('id', '>', after?.id ?? '')])))
    .orderBy('due_at').orderBy('id').limit(limit)
    .execute();
  if (slice.length === 0) return [];
  // The previous messages by primary key, apart: joined, PostgreSQL chose to read all of
  // messages (80 ms with 100,000) where a thousand look-ups take a few.
  const statuses = await db.selectFrom('messages').select(['id', 'status']).where('id', 'in', slice.map((l) => l.previous_message_id)).execute();
  const statusOf = new Map(statuses.map((m) => [m.id, m.status as MessageStatus]));
  return slice.map((l) => ({ id: l.id, dueAt: Number(l.due_at ?? 0), previousStatus: statusOf.get(l.previous_message_id) ?? null }));
}

/** The waiting legs among `ids`, with their previous messages' statuses. */
export async function waitingLegs(db: Executor, ids: readonly string[]): Promise<DecidedLeg[]> {
  if (ids.length === 0) return [];
  return decided(await waitingWithPrevious(db).where('l.id', 'in', [...ids]).orderBy('l.due_at').orderBy('l.id').execute());
}

/** Moves a waiting leg to `state`; false when it was no longer waiting (another process decided it). */
export async function settleLeg(db: Executor, id: string, state: Exclude<FallbackLegState, 'waiting'>, now: number): Promise<boolean> {
  const result = await db.updateTable('fallback_legs').set({ state, updated_at: now }).where('id', '=', id).where('state', '=', 'waiting').executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/**
 * A waiting leg whose previous message is still scheduled (its send was moved later, PATCH
 * …/schedule) is due again `after` its previous message's new time; false when it was no
 * longer waiting.
 */
export async function postponeLeg(db: Executor, leg: { readonly id: string; readonly previousMessageId: string; readonly afterMs: number }, now: number): Promise<boolean> {
  const previous = await db.selectFrom('messages').select('send_at').where('id', '=', leg.previousMessageId).executeTakeFirst();
  if (previous?.send_at == null) return false;
  const result = await db.updateTable('fallback_legs').set({ due_at: Number(previous.send_at) + leg.afterMs, updated_at: now })
    .where('id', '=', leg.id).where('state', '=', 'waiting').executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** The account's legs of a chain after the first, in order. */
export async function chainLegs(db: Executor, accountId: string, chainId: string): Promise<FallbackLeg[]> {
  const rows = await db.selectFrom('fallback_legs').selectAll().where('chain_id', '=', chainId).where('account_id', '=', accountId).orderBy('leg').execute();
  return rows.map(toLeg);
}

function toLeg(row: FallbackLegsTable): FallbackLeg {
  return {
    id: row.id, accountId: row.account_id, chainId: row.chain_id, sendId: row.send_id, previousMessageId: row.previous_message_id,
    channel: row.channel as Channel, recipient: row.recipient, payload: JSON.parse(row.payload) as unknown,
    options: JSON.parse(row.options) as Record<string, unknown>, mode: row.mode === 'test' ? 'test' : 'live', state: row.state as FallbackLegState,
    leg: Number(row.leg), legs: Number(row.legs), afterMs: Number(row.after_ms), reservedMessages: Number(row.reserved_messages),
    reservedBalance: Number(row.reserved_balance), dueAt: row.due_at === null ? null : Number(row.due_at), requestId: row.request_id,
  };
}

/** The channel and status of the account's messages among `ids` (a chain's legs that went), by id. */
export async function legMessages(db: Executor, accountId: string, ids: readonly string[]): Promise<Map<string, { channel: Channel; status: MessageStatus }>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('messages').select(['id', 'channel', 'status']).where('account_id', '=', accountId).where('id', 'in', [...ids]).execute();
  return new Map(rows.map((r) => [r.id, { channel: r.channel as Channel, status: r.status as MessageStatus }]));
}
