import type { Executor } from './database.ts';
import { listStoredEvents, type MessageEvent, type StoredEvent, type StoredMessage } from './messages.ts';

// A message's history as GET /v1/messages/:msgid shows it. Two internal steps have no
// rows of their own (issue 15, item 2: a row and a statement less per message and per
// attempt) and are derived here, in the place and with the fields their rows had:
// - `queued`: the message row's created_at, first (every message but a `dropped` one);
// - `sending` of an attempt: its claim time, carried by the attempt's outcome event
//   (sending_at, with the outcome's `attempt`), or by the outbox row while it runs.
// Stores written before migration 0019 hold these steps as rows, and their events and
// outbox rows carry no claim time: a stored `queued` is shown instead of a derived
// one, and an old `sending` row is a row like any other.

/** The running attempt of a message in flight: its outbox row's claim. */
export interface RunningAttempt {
  readonly claimedAt: number | null;
  readonly attempt: number;
}

/** The stored events with the derived steps put in. */
export function withDerivedSteps(
  message: Pick<StoredMessage, 'status' | 'createdAt'>, stored: readonly StoredEvent[], running: RunningAttempt | undefined,
): MessageEvent[] {
  const timeline: MessageEvent[] = [];
  // A dropped message is born final, never queued.
  if (message.status !== 'dropped' && !stored.some((e) => e.type === 'queued')) timeline.push({ type: 'queued', at: message.createdAt, data: {} });
  for (const { sendingAt, ...event } of stored) {
    // The retention purge leaves an outcome without its `attempt`, as it left the old `sending` rows.
    if (sendingAt !== null) timeline.push({ type: 'sending', at: sendingAt, data: typeof event.data['attempt'] === 'number' ? { attempt: event.data['attempt'] } : {} });
    timeline.push(event);
  }
  if (running !== undefined && running.claimedAt !== null) timeline.push({ type: 'sending', at: running.claimedAt, data: { attempt: running.attempt } });
  return timeline;
}

/** The message's history, oldest first (stored events in id order, derived steps in their place). */
export async function messageTimeline(db: Executor, message: Pick<StoredMessage, 'id' | 'status' | 'createdAt'>): Promise<MessageEvent[]> {
  const stored = await listStoredEvents(db, message.id);
  // Only a message in `sending` has an attempt running (the claim marks it, its outcome moves it on).
  const running = message.status === 'sending' ? await runningAttempt(db, message.id) : undefined;
  return withDerivedSteps(message, stored, running);
}

async function runningAttempt(db: Executor, messageId: string): Promise<RunningAttempt | undefined> {
  const row = await db.selectFrom('outbox').select(['claimed_at', 'attempts']).where('message_id', '=', messageId).executeTakeFirst();
  return row && { claimedAt: row.claimed_at === null ? null : Number(row.claimed_at), attempt: Number(row.attempts) };
}
