import type { Logger } from 'pino';
import type { Transport, Outcome } from '../channels/channel.ts';

import type { EmailPayload, Outbound, SmsPayload, WhatsappPayload } from '../domain/outbound.ts';
import type { DialectCapabilities } from '../store/dialect.ts';
import { claimDue, releaseAllLeases, type ClaimedMessage } from './claim.ts';
import { recordOutcome, type CompletionDeps } from './complete.ts';

export interface Transports {
  readonly email: Transport<EmailPayload>;
  readonly sms: Transport<SmsPayload>;
  readonly whatsapp: Transport<WhatsappPayload>;
}

export interface WorkerOptions {
  readonly owner: string;
  readonly batchSize: number;
  readonly leaseMs: number;
  /** Fallback poll when nobody calls wake(): retries that fall due, leases that expire. */
  readonly pollMs: number;
}

export const DEFAULT_WORKER_OPTIONS: Omit<WorkerOptions, 'owner'> = { batchSize: 64, leaseMs: 5 * 60_000, pollMs: 1000 };

/**
 * The delivery loop. Modes:
 *  - idle: sleeps until wake() (a commit in this process) or the poll timer fires;
 *  - draining: claims a batch, sends every message of it concurrently, records each
 *    outcome, and claims again at once while batches come back full;
 *  - stopping: claims nothing more, lets in-flight sends finish (they are bounded by
 *    their transports' time-outs), and returns. Unfinished leases simply expire.
 */
export class OutboxWorker {
  readonly #deps: CompletionDeps & { capabilities: DialectCapabilities; transports: Transports; logger: Logger };
  readonly #options: WorkerOptions;
  readonly #abort = new AbortController();
  #running = false;
  #loop: Promise<void> | undefined;
  #wakeUp: (() => void) | undefined;
  #pendingWake = false;

  constructor(deps: CompletionDeps & { capabilities: DialectCapabilities; transports: Transports; logger: Logger }, options: WorkerOptions) {
    this.#deps = deps;
    this.#options = options;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#recoverLeases().then(() => this.#run());
  }

  async #recoverLeases(): Promise<void> {
    if (!this.#deps.capabilities.singleServerProcess) return;
    try {
      const released = await releaseAllLeases(this.#deps.db);
      if (released > 0) this.#deps.logger.warn({ released }, 'released the leases of a previous run that did not stop cleanly; those messages are retried');
    } catch (error) {
      this.#deps.logger.error({ err: error }, 'could not release old leases; they will expire');
    }
  }

  wake(): void {
    this.#pendingWake = true;
    this.#wakeUp?.();
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.#wakeUp?.();
    await this.#loop;
  }

  /** Claims and delivers until nothing is due; for tests and for the CLI. */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const handled = await this.#processBatch();
      total += handled;
      if (handled === 0) return total;
    }
  }

  async #run(): Promise<void> {
    while (this.#running) {
      let handled = 0;
      try {
        handled = await this.#processBatch();
      } catch (error) {
        // A store hiccup must not end the loop; the next poll tries again.
        this.#deps.logger.error({ err: error }, 'outbox batch failed');
      }
      if (handled < this.#options.batchSize && this.#running) await this.#idle();
    }
  }

  #idle(): Promise<void> {
    if (this.#pendingWake) {
      this.#pendingWake = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.#options.pollMs);
      const self = this;
      function done(): void {
        clearTimeout(timer);
        self.#wakeUp = undefined;
        self.#pendingWake = false;
        resolve();
      }
      this.#wakeUp = done;
    });
  }

  async #processBatch(): Promise<number> {
    const { owner, leaseMs, batchSize } = this.#options;
    const claimed = await claimDue(this.#deps.db, this.#deps.capabilities, { owner, now: this.#deps.clock(), leaseMs, limit: batchSize }, this.#deps.newId);
    await Promise.all(claimed.map((message) => this.#deliver(message)));
    return claimed.length;
  }

  async #deliver(message: ClaimedMessage): Promise<void> {
    const outcome = await this.#send(message);
    const resolution = await recordOutcome(this.#deps, this.#options.owner, message, outcome);
    this.#deps.logger.debug({ msgid: message.msgid, channel: message.channel, resolution, attempt: message.attempt }, 'delivery attempt');
  }

  async #send(message: ClaimedMessage): Promise<Outcome> {
    const transport = this.#deps.transports[message.channel] as Transport<unknown>;
    const outbound: Outbound<unknown> = {
      msgid: message.msgid, accountId: message.accountId, attempt: message.attempt, recipient: message.recipient, payload: message.payload,
    };
    try {
      return await transport.send(outbound, this.#abort.signal);
    } catch (error) {
      // A transport that throws has a bug or met something unforeseen; treat it as
      // transient so the message is retried rather than lost, and say why.
      this.#deps.logger.error({ err: error, msgid: message.msgid }, 'transport threw');
      return { kind: 'deferred', peer: transport.name, response: `internal error: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
}

