import type { Tx } from '../../store/database.ts';
import type { DialectCapabilities } from '../../store/dialect.ts';
import type { Committer } from '../../store/group-commit.ts';
import { batchOperationsOf, type AttemptOutcome, type AttemptWrite } from '../../store/engine.ts';
import { execute, statement } from '../../store/prepared-statement.ts';
import { claimDueDeliveries, type ClaimedDelivery } from './claim.ts';

/** One finished attempt (or a delivery that could not be attempted), with what follows from it. */
export interface AttemptRecord extends AttemptOutcome {
  readonly accountId: string;
  /** null: the account's first endpoint (the accounts row). */
  readonly endpointId: string | null;
  /** The event's type (for the log line of the outcome). */
  readonly event: string;
  /** When the event happened (the delivery's creation): a success's delivery time is measured from it. */
  readonly eventAt: number;
  /** The endpoint answered 410 Gone: that endpoint is disabled for this reason (retry-policy.ts). */
  readonly disable?: string;
}

/**
 * Records finished attempts (the dispatcher batches them, so a busy receiver costs one
 * commit per batch, not per event), the engine's way (store/engine.ts): on PostgreSQL
 * every outcome and attempt row in one statement, on SQLite attempts with the same
 * outcome in one. Each delivery moves only while `owner` still holds its lease; an attempt
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
  const recorded = await batchOperationsOf(tx).recordAttempts(tx, owner, records, write);
  for (const record of records) {
    if (record.disable === undefined || record.url === null || !recorded.has(record.deliveryId)) continue;
    if (record.endpointId === null) await execute(tx, DISABLE, [write.now, record.disable, record.accountId, record.url]);
    else await execute(tx, DISABLE_ENDPOINT, [write.now, record.disable, record.endpointId, record.url]);
  }
  return recorded;
}

// Only while the account still posts to the URL that answered 410: a URL changed in the
// meantime is another endpoint. A disabled account stays as first disabled.
const DISABLE = statement(`
  update accounts set webhook_disabled_at = $1, webhook_disabled_reason = $2
  where id = $3 and webhook_url = $4 and webhook_disabled_at is null`);

const DISABLE_ENDPOINT = statement(`
  update webhook_endpoints set disabled_at = $1, disabled_reason = $2
  where id = $3 and url = $4 and disabled_at is null`);

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
