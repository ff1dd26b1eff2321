import type { Logger } from 'pino';
import type { Channel } from '../../domain/account.ts';
import type { Outbound } from '../../domain/outbound.ts';
import { simulatorScenario, type Scenario } from '../../domain/simulator.ts';
import type { Outcome, Transport } from '../channel.ts';

// The simulator (docs/sandbox.md): the "peer" of every simulator recipient, whatever
// transport is configured. A delivery attempt gets the scenario's outcome at once
// (nothing leaves the process); what the peer would report later (a delivery notice, a
// bounce, a complaint, an open, a WhatsApp read) follows one step delay apart, each
// recorded by `recordStep` (app/record-simulated-step.ts) as the real report would be.
//
// The later steps are timers of this process, as an SMSC's pending receipts live in the
// SMSC: a process stopped meanwhile does not replay them (the message stays `sent`).

export type StepResult = 'recorded' | 'not-yet' | 'unknown-message';

export interface SimulatorOptions {
  /** Between an accepted attempt and each later step; also the retry delay of `deferred`. */
  readonly stepMs: number;
  readonly recordStep: (target: { msgid: string; accountId: string; channel: Channel }, step: Scenario['later'][number]) => Promise<StepResult>;
  readonly logger: Logger;
}

/** A step that finds its message not yet accepted (its outcome still committing) is tried again this many times, at least this far apart. */
const MAX_EARLY_TRIES = 20;
const EARLY_RETRY_MS = 100;

const PEER = 'simulator';

const ACCEPTED_RESPONSE: Readonly<Record<Channel, string>> = {
  email: '250 2.0.0 Ok: queued (simulated)',
  sms: 'submit_sm_resp ESME_ROK (simulated)',
  whatsapp: 'accepted (simulated)',
};

export class Simulator {
  readonly #options: SimulatorOptions;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #running = new Set<Promise<void>>();
  #closed = false;

  constructor(options: SimulatorOptions) {
    this.#options = options;
  }

  /** The simulator as the transport of one channel. */
  transport<P>(channel: Channel): Transport<P> {
    return { name: `${channel}-simulator`, send: (message) => Promise.resolve(this.#attempt(channel, message)) };
  }

  /** Cancels the steps not yet due and waits for those being recorded. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    await Promise.allSettled([...this.#running]);
  }

  #attempt(channel: Channel, message: Outbound<unknown>): Outcome {
    const scenario = simulatorScenario(channel, message.recipient);
    // The worker sends only simulator recipients here; anything else is refused without leaving.
    if (scenario === undefined) return { kind: 'failed', peer: PEER, response: 'not a simulator recipient', leftTheHouse: false };
    const outcome = scenario.attempts[Math.min(message.attempt, scenario.attempts.length) - 1] ?? 'sent';
    if (outcome === 'deferred') {
      return { kind: 'deferred', peer: PEER, response: '451 4.3.0 Temporary failure, try again later (simulated)', retryAfterMs: this.#options.stepMs };
    }
    if (outcome === 'failed') return { kind: 'failed', peer: PEER, response: '550 5.0.0 Refused (simulated)', leftTheHouse: true };
    this.#schedule({ msgid: message.msgid, accountId: message.accountId, channel }, scenario.later, 0);
    return { kind: 'accepted', peer: PEER, response: ACCEPTED_RESPONSE[channel] };
  }

  #schedule(target: { msgid: string; accountId: string; channel: Channel }, steps: Scenario['later'], earlyTries: number): void {
    const [step, ...rest] = steps;
    if (step === undefined || this.#closed) return;
    const delay = earlyTries === 0 ? this.#options.stepMs : Math.max(this.#options.stepMs, EARLY_RETRY_MS);
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      const running = this.#options.recordStep(target, step).then(
        (result) => {
          if (result === 'recorded') this.#schedule(target, rest, 0);
          else if (result === 'not-yet' && earlyTries < MAX_EARLY_TRIES) this.#schedule(target, steps, earlyTries + 1);
        },
        (error: unknown) => this.#options.logger.error({ err: error, msgid: target.msgid, step }, 'could not record a simulated step'),
      ).finally(() => this.#running.delete(running));
      this.#running.add(running);
    }, delay);
    this.#timers.add(timer);
  }
}
