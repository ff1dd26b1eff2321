import type { Tx } from '../../store/database.ts';
import type { DialectCapabilities } from '../../store/dialect.ts';
import type { Committer } from '../../store/group-commit.ts';
import { execute, insertAll, insertRows, MAX_IN_LIST, onPostgres, placeholders, queryRows, statement, statementPerCount } from '../../store/prepared-statement.ts';
import { claimDueDeliveries, type ClaimedDelivery } from './claim.ts';
import { recordAttemptsInOne, type AttemptOutcome, type AttemptWrite } from './postgres-step.ts';

/** One finished attempt (or a delivery that could not be attempted), with what follows from it. */
export interface AttemptRecord extends AttemptOutcome {
  readonly accountId: string;
  /** The event's type (for the log line of the outcome). */
  readonly event: string;
  /** When the event happened (the delivery's creation): a success's delivery time is measured from it. */
  readonly eventAt: number;
  /** The endpoint answered 410 Gone: the account's webhook is disabled for this reason (retry-policy.ts). */
  readonly disable?: string;
}

/**
 * Records finished attempts (the dispatcher batches them, so a busy receiver costs one
 * commit per batch, not per event): on PostgreSQL every outcome and attempt row in one
 * statement (postgres-step.ts), on SQLite attempts with the same outcome in one
 * (RECORD). Each delivery moves only while `owner` still holds its lease; an attempt
 * whose lease was lost (it expired and another dispatcher took over) is not recorded,
 * and neither is what it would have disabled. Returns the ids recorded.
 */
export async function recordAttempts(
  tx: Tx,
  owner: string,
  records: readonly AttemptRecord[],
  write: AttemptWrite,
): Promise<Set<string>> {
  if (records.length === 0) return new Set();
  const recorded = onPostgres(tx) ? await recordAttemptsInOne(tx, owner, records, write) : await recordGroups(tx, owner, records, write);
  for (const record of records) {
    if (record.disable === undefined || record.url === null || !recorded.has(record.deliveryId)) continue;
    await execute(tx, DISABLE, [write.now, record.disable, record.accountId, record.url]);
  }
  return recorded;
}

/** SQLite: the attempts with the same outcome moved in one statement (RECORD), then their attempt rows. */
async function recordGroups(
  tx: Tx,
  owner: string,
  records: readonly AttemptRecord[],
  write: AttemptWrite,
): Promise<Set<string>> {
  // Same outcome, same columns: the 2xx answers of a batch are usually one group.
  const groups = new Map<string, AttemptRecord[]>();
  for (const record of records) {
    const key = JSON.stringify([record.next, record.attempts, record.statusCode, record.error]);
    const group = groups.get(key);
    if (group) group.push(record);
    else groups.set(key, [record]);
  }
  const recorded = new Set<string>();
  for (const group of groups.values()) {
    const [first] = group as [AttemptRecord, ...AttemptRecord[]];
    const nextAttemptAt = first.next.status === 'pending' ? first.next.nextAttemptAt : null;
    for (let i = 0; i < group.length; i += MAX_IN_LIST) {
      const ids = group.slice(i, i + MAX_IN_LIST).map((r) => r.deliveryId);
      const rows = await queryRows<{ id: string }>(tx, RECORD(ids.length), [
        first.next.status, first.attempts, nextAttemptAt, first.statusCode, first.error, write.now, owner, ...ids,
      ]);
      for (const row of rows) recorded.add(row.id);
    }
  }
  const attempts = records.filter((r) => r.url !== null && recorded.has(r.deliveryId));
  await insertAll(tx, INSERT_ATTEMPT, attempts.map((r) => [write.newId(), r.deliveryId, r.at, r.url, r.statusCode, r.error, r.durationMs]));
  return recorded;
}

// Conditioned on the lease: a dispatcher whose lease ran out changes nothing. A delivery
// that is not pending any more keeps its next_attempt_at (coalesce), which nothing reads.
const RECORD = statementPerCount((count) => `
  update webhook_deliveries
  set status = $1, attempts = $2, next_attempt_at = coalesce($3, next_attempt_at), last_status_code = $4, last_error = $5,
      lease_owner = null, lease_expires_at = null, updated_at = $6
  where lease_owner = $7 and id in (${placeholders(8, count)})
  returning id`);

const INSERT_ATTEMPT = insertRows('webhook_attempts', ['id', 'delivery_id', 'at', 'url', 'status_code', 'error', 'duration_ms']);

// Only while the account still posts to the URL that answered 410: a URL changed in the
// meantime is another endpoint. A disabled account stays as first disabled.
const DISABLE = statement(`
  update accounts set webhook_disabled_at = $1, webhook_disabled_reason = $2
  where id = $3 and webhook_url = $4 and webhook_disabled_at is null`);

/**
 * The dispatcher's one unit of work per step: the finished attempts written, then (when
 * `claim` is given) new deliveries leased, so a step costs one durable commit at most —
 * none of its own on SQLite, where the group committer lets it share the commit of the
 * events being recorded at the same time. A claim after the writes sees them: a message
 * whose event just succeeded has its next event due.
 */
export async function recordAndClaim(
  committer: Committer,
  capabilities: DialectCapabilities,
  step: {
    readonly owner: string;
    readonly now: number;
    readonly newId: () => string;
    readonly records: readonly AttemptRecord[];
    readonly claim?: { readonly leaseMs: number; readonly limit: number };
  },
): Promise<{ recorded: Set<string>; claimed: ClaimedDelivery[] }> {
  const { owner, now, newId, records, claim } = step;
  return committer.run(async (tx) => {
    const recorded = await recordAttempts(tx, owner, records, { now, newId });
    const claimed = claim === undefined ? [] : await claimDueDeliveries(tx, capabilities, { owner, now, leaseMs: claim.leaseMs, limit: claim.limit });
    return { recorded, claimed };
  });
}
