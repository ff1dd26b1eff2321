import { parseTimeBound, TIME_BOUND_PROBLEM } from '../domain/account-input.ts';
import { invalidField } from '../domain/admin-input.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import { DEFAULT_DELIVERY_PAGE, type DeliveryListQuery, type DeliveryStatus } from '../domain/webhook-delivery-query.ts';
import {
  findDelivery, insertDelivery, listAttempts, listDeliveries, retryDelivery, retryFailedDeliveries, type StoredDelivery,
} from '../store/webhook-deliveries.ts';
import { findWebhookEndpoint } from '../store/webhook-endpoints.ts';
import { findWebhookSettings } from '../store/webhook-settings.ts';
import { iso } from '../domain/wire-time.ts';
import type { AppDeps } from './deps.ts';

// The delivery log of an account's webhook (every event posted or to be posted, with
// each attempt), its replay, and test events. Always scoped by the caller's account.

/**
 * The type of a test event. Not a message event: it has no msgid, is not in the
 * catalogue, and is posted whatever the account's filter says.
 */
export const TEST_EVENT_TYPE = 'webhook.test';

export interface DeliverySummary {
  /** The event's id, sent as `webhook-id`. */
  readonly id: string;
  readonly type: string;
  /** null for test events. */
  readonly msgid: string | null;
  readonly status: DeliveryStatus;
  readonly attempt_count: number;
  /** When the next attempt is due; null unless pending. */
  readonly next_attempt_at: string | null;
  readonly last_status_code: number | null;
  readonly last_error: string | null;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface AttemptView {
  readonly at: string;
  readonly url: string;
  /** The receiver's HTTP status; null when it did not answer (network error, time-out, refused address). */
  readonly status_code: number | null;
  readonly error: string | null;
  readonly duration_ms: number;
}

export interface DeliveryDetails extends DeliverySummary {
  /** The JSON body posted, byte for byte the same on every attempt. */
  readonly payload: unknown;
  /** Oldest first. */
  readonly attempts: readonly AttemptView[];
}

export interface DeliveryPage {
  readonly data: readonly DeliverySummary[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  readonly next_cursor: string | null;
}

function summary(d: StoredDelivery): DeliverySummary {
  return {
    id: d.id, type: d.type, msgid: d.messageId, status: d.status, attempt_count: d.attempts,
    // A delivery not yet tried is due from its event's time on (it is stored as due at 0).
    next_attempt_at: d.status === 'pending' ? iso(Math.max(d.nextAttemptAt, d.createdAt)) : null,
    last_status_code: d.lastStatusCode, last_error: d.lastError, created_at: iso(d.createdAt), updated_at: iso(d.updatedAt),
  };
}

/**
 * GET /v1/webhooks/deliveries (the first endpoint's log, `endpointId` null) and
 * /v1/webhooks/endpoints/:id/deliveries — newest first, filtered by status or message, one page at a time.
 */
export async function listWebhookDeliveries(deps: AppDeps, accountId: string, query: DeliveryListQuery, endpointId: string | null = null): Promise<Result<DeliveryPage>> {
  const { status, msgid, cursor, limit = DEFAULT_DELIVERY_PAGE } = query;
  // One row more than asked tells whether another page exists.
  const rows = await listDeliveries(deps.db, accountId, {
    endpointId,
    ...(status === undefined ? {} : { status }), ...(msgid === undefined ? {} : { messageId: msgid }),
    ...(cursor === undefined ? {} : { before: cursor }), limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  return ok({ data: page.map(summary), next_cursor: rows.length > limit ? (page.at(-1)?.id ?? null) : null });
}

/** GET /v1/webhooks/deliveries/:id — the delivery, its body and every attempt. */
export async function getWebhookDelivery(deps: AppDeps, accountId: string, id: string): Promise<Result<DeliveryDetails>> {
  const delivery = await findDelivery(deps.db, accountId, id);
  if (!delivery) return reject('notFound');
  const attempts = await listAttempts(deps.db, delivery.id);
  return ok({
    ...summary(delivery),
    payload: JSON.parse(delivery.payload) as unknown,
    attempts: attempts.map((a) => ({ at: iso(a.at), url: a.url, status_code: a.statusCode, error: a.error, duration_ms: a.durationMs })),
  });
}

/** Whether the endpoint (null: the account's first) has somewhere to post: another endpoint always has its URL. */
async function hasWebhookUrl(deps: AppDeps, accountId: string, endpointId: string | null = null): Promise<boolean> {
  if (endpointId !== null) return (await findWebhookEndpoint(deps.db, accountId, endpointId)) !== undefined;
  const url = (await findWebhookSettings(deps.db, accountId))?.url;
  return url !== undefined && url !== null;
}

/**
 * POST /v1/webhooks/deliveries/:id/retry — due again now, whatever its status: one
 * attempt more for a failed delivery (failed again at once if it fails: the schedule
 * is not restarted), a replay of a succeeded one, an early try for a waiting one.
 * Same `webhook-id` and body, so a receiver that de-duplicates sees it once.
 */
export async function retryWebhookDelivery(deps: AppDeps, accountId: string, id: string): Promise<Result<DeliverySummary>> {
  const found = await findDelivery(deps.db, accountId, id);
  if (!found) return reject('notFound');
  if (!(await hasWebhookUrl(deps, accountId, found.endpointId))) return reject('webhookUrlMissing');
  await retryDelivery(deps.db, accountId, id, deps.clock());
  deps.wakeWebhooks?.();
  const delivery = await findDelivery(deps.db, accountId, id);
  if (!delivery) return reject('notFound');
  return ok(summary(delivery));
}

/** Most deliveries one "retry every failed since" puts back; the answer says how many it did. */
export const MAX_BULK_RETRY = 10_000;

/**
 * POST /v1/webhooks/deliveries/retry-failed {since} — every failed delivery of the
 * account created at or after `since` gets one more attempt now (up to MAX_BULK_RETRY).
 */
export async function retryFailedSince(
  deps: AppDeps, accountId: string, body: { readonly since: string | number }, endpointId: string | null = null,
): Promise<Result<{ retried: number }>> {
  // The route's schema has checked the form; an ISO time that names no instant (month 13) is refused here.
  const since = parseTimeBound(String(body.since), 'since');
  if (!since.ok) return since;
  if (since.value === undefined) return invalidField('since', TIME_BOUND_PROBLEM);
  if (!(await hasWebhookUrl(deps, accountId, endpointId))) return reject('webhookUrlMissing');
  const retried = await retryFailedDeliveries(deps.db, accountId, endpointId, since.value, deps.clock(), MAX_BULK_RETRY);
  if (retried > 0) deps.wakeWebhooks?.();
  return ok({ retried });
}

/**
 * POST /v1/webhooks/test (the first endpoint, `endpointId` null) and
 * /v1/webhooks/endpoints/:id/test — queues a test event for the endpoint's URL, signed
 * and retried like any other; its delivery (and the receiver's answer) is in the log.
 * Its type is `webhook.test` unless another (a public event type) is asked for; either
 * way its data is the test's own (no msgid), and the endpoint's filter does not apply.
 */
export async function sendTestEvent(
  deps: AppDeps, accountId: string, endpointId: string | null = null, type: string = TEST_EVENT_TYPE,
): Promise<Result<DeliverySummary>> {
  if (!(await hasWebhookUrl(deps, accountId, endpointId))) return reject('webhookUrlMissing');
  const id = deps.newId();
  const at = deps.clock();
  const payload = { type, timestamp: iso(at), data: { account: accountId, message: 'A test event from herald: your endpoint is reachable and verifies signatures.' } };
  await insertDelivery(deps.db, { id, accountId, messageId: null, type, payload: JSON.stringify(payload), at, ...(endpointId === null ? {} : { endpointId }) });
  deps.wakeWebhooks?.();
  const delivery = await findDelivery(deps.db, accountId, id);
  if (!delivery) throw new Error(`test delivery ${id} vanished`);
  return ok(summary(delivery));
}
