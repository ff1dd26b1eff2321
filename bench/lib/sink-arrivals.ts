import { EventEmitter } from 'node:events';
import type { ReceivedMessage, SmtpSink } from '../../test/peers/smtp-sink.ts';
import { onPush, whenCount, type Budget } from './common.ts';

// The email benchmarks' SMTP sink: herald relays into it, and their clock stops there —
// each waits for the messages of a round to arrive (within the run's budget), then takes
// them out so the next round counts from zero.

export interface TakenMessages {
  readonly count: number;
  /** Raw bytes of all of them, as received after dot-unstuffing. */
  readonly bytes: number;
  readonly messages: readonly ReceivedMessage[];
}

export interface SinkArrivals {
  /** performance.now() when `target` messages are at the sink (counted since the last take). */
  received(target: number, what: string): Promise<number>;
  /** The messages received since the last take, removed from the sink. */
  take(): TakenMessages;
}

/**
 * herald's variables to relay into the sink. The sink's certificate is smtp-server's
 * self-signed (and expired) one, and the relay URL has no way to skip verification:
 * STARTTLS still runs, unverified.
 */
export function relayToSink(sink: SmtpSink): Record<string, string> {
  return { HERALD_EMAIL_TRANSPORT: `smtp://127.0.0.1:${sink.port}`, NODE_TLS_REJECT_UNAUTHORIZED: '0' };
}

export function watchSink(sink: SmtpSink, budget: Budget): SinkArrivals {
  const arrivals = new EventEmitter();
  onPush(sink.messages, () => arrivals.emit('message'));
  return {
    received: (target, what) =>
      budget.within(
        whenCount(() => sink.messages.length, target, (check) => {
          arrivals.on('message', check);
          return () => arrivals.off('message', check);
        }),
        () => `${what} (${sink.messages.length} of ${target} messages at the sink)`,
      ),
    take() {
      const messages = sink.messages.splice(0);
      return { count: messages.length, bytes: messages.reduce((sum, m) => sum + m.raw.length, 0), messages };
    },
  };
}
