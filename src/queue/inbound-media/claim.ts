import type { Db, Executor, Tx } from '../../store/database.ts';
import type { DialectCapabilities } from '../../store/dialect.ts';
import { execute, placeholders, queryRows, statement, statementPerCount } from '../../store/prepared-statement.ts';
import { leaseStatement } from '../skip-locked.ts';

// The inbound media queue's SQL (queue/inbound-media/inbound-media-queue.ts): pending
// attachments with a media reference leased due first, each attempt counted when it is
// leased (so one that kills its process is still counted), and every outcome written
// only while the lease is still this owner's.

/** An attachment to fetch, as leased. */
export interface MediaJob {
  readonly id: string;
  readonly inboundId: string;
  /** Whose token fetches it. */
  readonly accountId: string;
  readonly mediaRef: string;
  /** Attempts so far, this one included. */
  readonly attempts: number;
}

/** Leases up to `limit` due attachments to `owner` until `now + leaseMs`. Call in a transaction. */
export async function claimDueMedia(
  tx: Tx,
  capabilities: DialectCapabilities,
  lease: { owner: string; now: number; leaseMs: number; limit: number },
): Promise<MediaJob[]> {
  const { owner, now, leaseMs, limit } = lease;
  const due = await queryRows<{ id: string }>(tx, DUE(capabilities), [now, limit]);
  if (due.length === 0) return [];
  const rows = await queryRows<{ id: string; inbound_id: string; account_id: string; media_ref: string; attempts: number | string }>(
    tx, LEASE(due.length), [owner, now + leaseMs, ...due.map((d) => d.id)]);
  return rows.map((row) => ({ id: row.id, inboundId: row.inbound_id, accountId: row.account_id, mediaRef: row.media_ref, attempts: Number(row.attempts) }));
}

// inbound_attachments_due (state, next_attempt_at, id) serves it. The media of an
// unrouted message waits (no account, no token) until the operator routes it.
const DUE = leaseStatement((lock) => `
  select id from inbound_attachments
  where state = 'pending' and media_ref is not null and account_id is not null and next_attempt_at <= $1
    and (lease_expires_at is null or lease_expires_at <= $1)
  order by next_attempt_at, id
  limit $2${lock}`);

const LEASE = statementPerCount((count) => `
  update inbound_attachments set lease_owner = $1, lease_expires_at = $2, attempts = attempts + 1
  where id in (${placeholders(3, count)})
  returning id, inbound_id, account_id, media_ref, attempts`);

/** The bytes fetched: `stored`, with Meta's type when the message gave none. False: the lease was lost. */
export async function recordMediaStored(db: Executor, id: string, owner: string, stored: { content: Buffer; contentType: string | null; now: number }): Promise<boolean> {
  return (await execute(db, STORED, [id, owner, stored.content.toString('base64'), stored.content.length, stored.contentType, stored.now])) === 1;
}

const STORED = statement(`
  update inbound_attachments set state = 'stored', content = $3, size = $4, content_type = coalesce(content_type, $5), last_error = null,
    lease_owner = null, lease_expires_at = null, updated_at = $6
  where id = $1 and lease_owner = $2 and state = 'pending'`);

/** Tried again at `nextAttemptAt`, or (nextAttemptAt undefined) `failed` for good, with the reason. */
export async function recordMediaFailure(db: Executor, id: string, owner: string, failure: { reason: string; nextAttemptAt: number | undefined; now: number }): Promise<boolean> {
  if (failure.nextAttemptAt === undefined) return (await execute(db, FAILED, [id, owner, failure.reason, failure.now])) === 1;
  return (await execute(db, RETRY, [id, owner, failure.reason, failure.nextAttemptAt, failure.now])) === 1;
}

const FAILED = statement(`
  update inbound_attachments set state = 'failed', last_error = $3, lease_owner = null, lease_expires_at = null, updated_at = $4
  where id = $1 and lease_owner = $2 and state = 'pending'`);

const RETRY = statement(`
  update inbound_attachments set last_error = $3, next_attempt_at = $4, lease_owner = null, lease_expires_at = null, updated_at = $5
  where id = $1 and lease_owner = $2 and state = 'pending'`);

/** Releases every media lease (a single server process at start); returns how many were held. */
export function releaseAllMediaLeases(db: Db): Promise<number> {
  return execute(db, RELEASE_ALL, []);
}

const RELEASE_ALL = statement(`update inbound_attachments set lease_owner = null, lease_expires_at = null where lease_owner is not null and state = 'pending'`);
