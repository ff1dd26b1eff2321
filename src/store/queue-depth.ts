import { CHANNELS, type Channel } from '../domain/account.ts';
import type { QueueSnapshot } from '../metrics/registry.ts';
import type { Db } from './database.ts';

/**
 * How much waits in the outbox (per channel) and in the webhook queue, and since
 * when: read at each metrics scrape. The outbox is read alone, without joining its
 * messages: message ids are UUIDv7, so the smallest id of a channel is its oldest
 * message, whose creation time is then one look-up by primary key. (The join took
 * 250 ms a scrape on SQLite with 100,000 messages queued, on the event loop; this
 * takes a tenth of that: bench/metrics-scrape.ts.) Pending webhook deliveries are
 * counted through their (status, next_attempt_at, id) index.
 * A row not yet due that was never tried nor leased is a message before its time (a
 * scheduled send, a paced campaign): not waiting, so neither counted nor aged; once due, a
 * scheduled message's age runs from its send_at, so a send for tomorrow never looks stuck.
 */
export async function readQueueDepths(db: Db, now: number): Promise<QueueSnapshot> {
  const outboxRows = await db
    .selectFrom('outbox')
    .select((eb) => ['channel', eb.fn.countAll<number | string>().as('depth'), eb.fn.min('message_id').as('oldest_id')])
    .where((eb) => eb.or([eb('available_at', '<=', now), eb('attempts', '>', 0), eb('lease_owner', 'is not', null)]))
    .groupBy('channel')
    .execute();
  const oldestIds = outboxRows.map((row) => row.oldest_id);
  const created = oldestIds.length === 0 ? [] : await db.selectFrom('messages').select(['id', 'created_at', 'send_at']).where('id', 'in', oldestIds).execute();
  const createdAt = new Map(created.map((row) => [row.id, row.send_at ?? row.created_at]));
  const byChannel = new Map(outboxRows.map((row) => [row.channel, row]));
  const outbox = CHANNELS.map((channel: Channel) => {
    const row = byChannel.get(channel);
    return { channel, depth: Number(row?.depth ?? 0), oldestAgeSeconds: ageSeconds(now, row === undefined ? undefined : createdAt.get(row.oldest_id)) };
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
