import type { Channel } from '../domain/account.ts';
import type { Db } from '../store/database.ts';
import type { DialectCapabilities } from '../store/dialect.ts';
import { transactionPerWork, type Committer } from '../store/group-commit.ts';
import { markSending } from '../store/messages.ts';

export interface ClaimedMessage {
  readonly msgid: string;
  readonly accountId: string;
  readonly channel: Channel;
  readonly recipient: string;
  readonly attempt: number;
  readonly createdAt: number;
  readonly costMessages: number;
  readonly costBalance: number;
  readonly payload: unknown;
}

/**
 * Takes up to `limit` due rows of one channel and leases them to `owner` until `now + leaseMs`:
 *
 *   UPDATE outbox SET lease_owner = $owner, lease_expires_at = $now + $lease, attempts = attempts + 1
 *   WHERE message_id IN (SELECT message_id FROM outbox
 *                        WHERE channel = $channel AND available_at <= $now
 *                          AND (lease_expires_at IS NULL OR lease_expires_at <= $now)
 *                        ORDER BY available_at LIMIT $limit [FOR UPDATE SKIP LOCKED])
 *   RETURNING message_id, attempts
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
    const claimed = await tx
      .updateTable('outbox')
      .set((eb) => ({ lease_owner: owner, lease_expires_at: now + leaseMs, attempts: eb('attempts', '+', 1) }))
      .where('message_id', 'in', (eb) =>
        eb
          .selectFrom('outbox')
          .select('message_id')
          .where('channel', '=', channel)
          .where('available_at', '<=', now)
          .where((w) => w.or([w('lease_expires_at', 'is', null), w('lease_expires_at', '<=', now)]))
          .orderBy('available_at')
          .limit(limit)
          .$if(capabilities.skipLocked, (q) => q.forUpdate().skipLocked()),
      )
      .returning(['message_id', 'attempts'])
      .execute();
    if (claimed.length === 0) return [];

    const attempts = new Map(claimed.map((row) => [row.message_id, row.attempts]));
    await markSending(tx, claimed.map((row) => ({ id: row.message_id, eventId: newId(), attempt: row.attempts })), now);
    const rows = await tx
      .selectFrom('messages')
      .innerJoin('sends', 'sends.id', 'messages.send_id')
      .select([
        'messages.id', 'messages.account_id', 'messages.channel', 'messages.recipient', 'messages.created_at',
        'messages.cost_messages', 'messages.cost_balance', 'sends.payload',
      ])
      .where('messages.id', 'in', [...attempts.keys()])
      .execute();
    return rows.map((row) => ({
      msgid: row.id,
      accountId: row.account_id,
      channel: row.channel as Channel,
      recipient: row.recipient,
      attempt: attempts.get(row.id) ?? 1,
      createdAt: Number(row.created_at),
      costMessages: Number(row.cost_messages),
      costBalance: Number(row.cost_balance),
      payload: JSON.parse(row.payload) as unknown,
    }));
  });
}

/** Releases every lease (see DialectCapabilities.singleServerProcess); returns how many rows were leased. */
export async function releaseAllLeases(db: Db): Promise<number> {
  const result = await db
    .updateTable('outbox')
    .set({ lease_owner: null, lease_expires_at: null })
    .where('lease_owner', 'is not', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
