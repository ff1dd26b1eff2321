import type { Channel } from '../../domain/account.ts';
import type { KeyMode } from '../../domain/key-mode.ts';
import type { Db } from '../../store/database.ts';
import type { DialectCapabilities } from '../../store/dialect.ts';
import { transactionPerWork, type Committer } from '../../store/group-commit.ts';
import { insertSendingEvents, markSending } from '../../store/messages.ts';
import { placeholders, queryRows, statementPerCount } from '../../store/prepared-statement.ts';
import { leaseStatement } from '../skip-locked.ts';

export interface ClaimedMessage {
  readonly msgid: string;
  readonly accountId: string;
  readonly channel: Channel;
  readonly recipient: string;
  readonly attempt: number;
  /** When this attempt was claimed: its `sending` step, recorded with its outcome (outbox/complete.ts). */
  readonly claimedAt: number;
  readonly createdAt: number;
  readonly costMessages: number;
  readonly costBalance: number;
  readonly payload: unknown;
  /** A test key's message goes through the capture transport of its channel (docs/sandbox.md). */
  readonly mode: KeyMode;
  /** The x-request-id of the request that sent it (null: no request, a campaign's): the delivery lines carry it as reqId. */
  readonly requestId: string | null;
}

/**
 * Takes up to `limit` due rows of one channel and leases them to `owner` until
 * `now + leaseMs` (the SQL is CLAIM below). A leased row is also made available again
 * only at its lease's expiry (`available_at`), so the claim's index scan on
 * (channel, available_at) starts past the rows in flight instead of stepping over them.
 *
 * A worker that dies keeps its lease until it expires; then the rows are due again
 * and another worker takes them over. On PostgreSQL, SKIP LOCKED lets concurrent
 * workers pass each other's rows instead of queueing on them.
 */
export async function claimDue(
  db: Db,
  capabilities: DialectCapabilities,
  lease: { owner: string; now: number; leaseMs: number; limit: number; channel: Channel },
  newId: () => string,
  commit: Committer = transactionPerWork(db),
): Promise<ClaimedMessage[]> {
  const { owner, now, leaseMs, limit, channel } = lease;
  // Claim, mark `sending` and read as one unit of work: at most one commit per claim,
  // shared on SQLite with the outcomes and accepts of the moment (group commit).
  return commit.run(async (tx) => {
    const claimed = await queryRows<{ message_id: string; attempts: number; abandoned_at: number | null }>(
      tx, CLAIM(capabilities), [owner, now + leaseMs, channel, now, limit]);
    if (claimed.length === 0) return [];

    const attempts = new Map(claimed.map((row) => [row.message_id, Number(row.attempts)]));
    await markSending(tx, [...attempts.keys()], now);
    // The previous attempt of a row claimed again without an outcome (its worker died)
    // has nothing left to carry its `sending` step: that step becomes an event row.
    const abandoned = claimed.filter((row) => row.abandoned_at !== null);
    if (abandoned.length > 0) {
      await insertSendingEvents(tx, abandoned.map((row) => ({ id: row.message_id, eventId: newId(), attempt: Number(row.attempts) - 1, at: Number(row.abandoned_at) })));
    }
    const rows = await queryRows<ClaimedRow>(tx, readClaimed(claimed.length), [...attempts.keys()]);
    // Recipients of one request share its payload: parsed once.
    const payloads = new Map<string, unknown>();
    return rows.map((row) => {
      let payload = payloads.get(row.send_id);
      if (payload === undefined) payloads.set(row.send_id, (payload = JSON.parse(row.payload) as unknown));
      return {
        msgid: row.id,
        accountId: row.account_id,
        channel: row.channel as Channel,
        recipient: row.recipient,
        attempt: attempts.get(row.id) ?? 1,
        claimedAt: now,
        createdAt: Number(row.created_at),
        costMessages: Number(row.cost_messages),
        costBalance: Number(row.cost_balance),
        payload,
        mode: row.mode === 'test' ? 'test' : 'live',
        requestId: row.request_id,
      };
    });
  });
}

// claimed_at is the attempt's `sending` step until its outcome takes it (complete.ts
// clears it on a retry; the row goes on a final outcome): one still set here is a claim
// that ended without an outcome, handed on as abandoned_at (SET reads the old row).
const CLAIM = leaseStatement((lock) => `
  update outbox set lease_owner = $1, lease_expires_at = $2, available_at = $2, attempts = attempts + 1,
                    abandoned_at = claimed_at, claimed_at = $4
  where message_id in (select message_id from outbox
                       where channel = $3 and available_at <= $4
                         and (lease_expires_at is null or lease_expires_at <= $4)
                       order by available_at limit $5${lock})
  returning message_id, attempts, abandoned_at`);

interface ClaimedRow {
  id: string; account_id: string; channel: string; recipient: string; created_at: number;
  cost_messages: number; cost_balance: number; send_id: string; payload: string; mode: string; request_id: string | null;
}

// A scheduled message counts from its send time (migration 0035), so its retry horizon is not spent waiting.
const readClaimed = statementPerCount((count) => `
  select m.id, m.account_id, m.channel, m.recipient, coalesce(m.send_at, m.created_at) as created_at, m.cost_messages, m.cost_balance, m.send_id, s.payload, m.mode, s.request_id
  from messages m join sends s on s.id = m.send_id
  where m.id in (${placeholders(1, count)})`);

/**
 * Releases every lease (see DialectCapabilities.singleServerProcess), the rows due at
 * `now`; returns how many rows were leased.
 */
export async function releaseAllLeases(db: Db, now: number): Promise<number> {
  const result = await db
    .updateTable('outbox')
    .set({ lease_owner: null, lease_expires_at: null, available_at: now })
    .where('lease_owner', 'is not', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
