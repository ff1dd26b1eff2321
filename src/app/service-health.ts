import type { Channel } from '../domain/account.ts';
import type { Db } from '../store/database.ts';
import { readDeliveryHold, type DeliveryHold } from './delivery-hold.ts';
import { countFailuresSince, listProcessesSeenSince, type ProcessRecord } from '../store/processes.ts';
import { readQueueDepths } from '../store/queue-depth.ts';

// GET /admin/v1/health: what the operator's console shows — the processes seen in the
// last hour with their roles, the messages waiting per channel and the oldest one's age,
// the webhook backlog, and the messages that failed or bounced in the last hour.

const HOUR_MS = 3600 * 1000;

export interface ServiceHealth {
  readonly processes: readonly ProcessRecord[];
  readonly queues: readonly { readonly channel: Channel; readonly queued: number; readonly oldestAgeSeconds: number | null }[];
  readonly webhookBacklog: number;
  readonly failuresLastHour: number;
  /** Delivery held (app/delivery-hold.ts), or undefined. */
  readonly deliveryHold: DeliveryHold | undefined;
}

export async function serviceHealth(deps: { readonly db: Db; readonly clock: () => number }): Promise<ServiceHealth> {
  const now = deps.clock();
  const [processes, depths, failures, deliveryHold] = await Promise.all([
    listProcessesSeenSince(deps.db, now - HOUR_MS),
    readQueueDepths(deps.db, now),
    countFailuresSince(deps.db, now - HOUR_MS),
    readDeliveryHold(deps.db),
  ]);
  return {
    processes,
    queues: depths.outbox.map((q) => ({ channel: q.channel, queued: q.depth, oldestAgeSeconds: q.depth === 0 ? null : Math.floor(q.oldestAgeSeconds) })),
    webhookBacklog: depths.webhooks.backlog,
    failuresLastHour: failures,
    deliveryHold,
  };
}
