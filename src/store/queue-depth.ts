import { CHANNELS, type Channel } from '../domain/account.ts';
import type { QueueSnapshot } from '../metrics/registry.ts';
import type { Db } from './database.ts';

/**
 * How much waits in the outbox (per channel) and in the webhook queue, and since
 * when: read at each metrics scrape. Two grouped aggregates; the outbox holds only
 * what is not yet delivered, and pending webhook deliveries are found through the
 * (status, next_attempt_at, id) index, so both stay cheap while the queues are short
 * — and a long queue is what the scrape is there to show.
 */
export async function readQueueDepths(db: Db, now: number): Promise<QueueSnapshot> {
  const outboxRows = await db
    .selectFrom('outbox')
    .innerJoin('messages', 'messages.id', 'outbox.message_id')
    .select((eb) => ['outbox.channel', eb.fn.countAll<number | string>().as('depth'), eb.fn.min('messages.created_at').as('oldest')])
    .groupBy('outbox.channel')
    .execute();
  const byChannel = new Map(outboxRows.map((row) => [row.channel, row]));
  const outbox = CHANNELS.map((channel: Channel) => {
    const row = byChannel.get(channel);
    return { channel, depth: Number(row?.depth ?? 0), oldestAgeSeconds: ageSeconds(now, row?.oldest) };
  });

  const webhookRow = await db
    .selectFrom('webhook_deliveries')
    .where('status', '=', 'pending')
    .select((eb) => [eb.fn.countAll<number | string>().as('backlog'), eb.fn.min('created_at').as('oldest')])
    .executeTakeFirst();
  return { outbox, webhooks: { backlog: Number(webhookRow?.backlog ?? 0), oldestAgeSeconds: ageSeconds(now, webhookRow?.oldest) } };
}

function ageSeconds(now: number, oldest: number | string | null | undefined): number {
  if (oldest === null || oldest === undefined) return 0;
  return Math.max(0, (now - Number(oldest)) / 1000);
}
