import type { Channel } from '../domain/account.ts';
import { publicEventType, type RecordedPublicEvent } from '../domain/event-catalogue.ts';
import type { Executor } from './database.ts';

// The public events a transaction recorded, told to the metrics only once it has
// committed: a unit of work may run more than once (group-commit.ts runs a batch again
// with savepoints when a unit fails) or be rolled back, and neither may count. Every
// public event passes through webhook-deliveries.ts enqueueWebhookDeliveryOf (the
// webhook producer, called for every recorded event, whether or not a webhook is
// posted), which notes it on the tally of its transaction, if one is bound
// (group-commit.ts binds one when its owner listens: GroupCommitOptions.onEvents).

/** What a message's event is known by when it is recorded: its channel and acceptance time. */
export interface EventMessage {
  readonly channel: string;
  readonly created_at: number | string;
}

export class EventTally {
  readonly #events: RecordedPublicEvent[] = [];

  note(event: RecordedPublicEvent): void {
    this.#events.push(event);
  }

  /** Where a unit of work begins: a unit rolled back to its savepoint drops what it noted since. */
  mark(): number {
    return this.#events.length;
  }

  rollbackTo(mark: number): void {
    this.#events.length = Math.min(mark, this.#events.length);
  }

  /** The events noted, emptying the tally. */
  take(): readonly RecordedPublicEvent[] {
    return this.#events.splice(0);
  }
}

const tallies = new WeakMap<Executor, EventTally>();

export function bindEventTally(tx: Executor, tally: EventTally): void {
  tallies.set(tx, tally);
}

export function unbindEventTally(tx: Executor): void {
  tallies.delete(tx);
}

/** The public event a recorded internal one is, or undefined for an internal step (`queued`, `sending`). */
export function publicEventOf(message: EventMessage, event: { readonly type: string; readonly at: number }): RecordedPublicEvent | undefined {
  const channel = message.channel as Channel;
  const type = publicEventType(channel, event.type);
  return type === undefined ? undefined : { channel, type, at: event.at, acceptedAt: Number(message.created_at) };
}

/** Notes a recorded event on the tally of `tx`, when it has one and the event is public. */
export function noteRecordedEvent(tx: Executor, message: EventMessage, event: { readonly type: string; readonly at: number }): void {
  const tally = tallies.get(tx);
  const published = tally === undefined ? undefined : publicEventOf(message, event);
  if (published !== undefined) tally?.note(published);
}
