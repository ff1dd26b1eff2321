import type { Tx } from '../database.ts';
import type { AttemptOutcome, AttemptWrite } from '../engine.ts';
import { insertAll, insertRows, MAX_IN_LIST, placeholders, queryRows, statementPerCount } from '../prepared-statement.ts';

// SQLite: the dispatcher's finished attempts with the same outcome moved in one
// statement each (RECORD), then their attempt rows. The statements run in process:
// PostgreSQL's one statement for every outcome (store/postgres/webhook-attempts.ts)
// would save no round trip here.

/** The deliveries' outcomes, each moved only while `owner` holds its lease, and their attempt rows; returns the ids recorded. */
export async function recordAttemptGroups(
  tx: Tx,
  owner: string,
  records: readonly AttemptOutcome[],
  write: AttemptWrite,
): Promise<Set<string>> {
  // Same outcome, same columns: the 2xx answers of a batch are usually one group.
  const groups = new Map<string, AttemptOutcome[]>();
  for (const record of records) {
    const key = JSON.stringify([record.next, record.attempts, record.statusCode, record.error]);
    const group = groups.get(key);
    if (group) group.push(record);
    else groups.set(key, [record]);
  }
  const recorded = new Set<string>();
  for (const group of groups.values()) {
    const [first] = group as [AttemptOutcome, ...AttemptOutcome[]];
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
