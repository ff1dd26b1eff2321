import type { Logger } from 'pino';
import type { Outcome, Transport } from '../channels/channel.ts';
import { CHANNELS, type Channel } from '../domain/account.ts';
import type { EmailPayload, Outbound, SmsPayload, WhatsappPayload } from '../domain/outbound.ts';
import type { Metrics } from '../metrics/registry.ts';
import type { DialectCapabilities } from '../store/dialect.ts';
import { transactionPerWork, type Committer } from '../store/group-commit.ts';
import { claimDue, releaseAllLeases, type ClaimedMessage } from './claim.ts';
import { recordOutcome, type CompletionDeps } from './complete.ts';

export interface Transports {
  readonly email: Transport<EmailPayload>;
  readonly sms: Transport<SmsPayload>;
  readonly whatsapp: Transport<WhatsappPayload>;
}

export interface WorkerOptions {
  readonly owner: string;
  /** Largest claim of one statement. */
  readonly batchSize: number;
  /** Deliveries in flight per channel: each channel has its own slots. */
  readonly concurrency: number;
  readonly leaseMs: number;
  /** Fallback poll when nobody calls wake(): retries that fall due, leases that expire. */
  readonly pollMs: number;
}

export const DEFAULT_WORKER_OPTIONS: Omit<WorkerOptions, 'owner'> = { batchSize: 64, concurrency: 128, leaseMs: 5 * 60_000, pollMs: 1000 };

type WorkerDeps = CompletionDeps & {
  capabilities: DialectCapabilities; transports: Transports; logger: Logger;
  /** Counts outcomes and transports that throw; absent in tests that build a bare worker. */
  metrics?: Metrics;
};

/**
 * The delivery loop. Each channel has `concurrency` slots; the loop claims due rows
 * of a channel while it has free slots and starts their deliveries without waiting
 * for one another, so a slow peer holds only the slots of its own messages and never
 * the traffic of another channel. Modes:
 *  - idle: no channel named; sleeps until wake() (a commit in this process names every
 *    channel, a finished delivery its own) or the poll timer (every channel);
 *  - claiming: claims for the named channels that have free slots; a full claim names
 *    its channel again;
 *  - stopping: claims nothing more and waits for in-flight deliveries (each bounded
 *    by its transport's time-outs). A lease whose delivery never finished expires.
 */
export class OutboxWorker {
  readonly #deps: WorkerDeps;
  readonly #options: WorkerOptions;
  /** Claims and outcomes are units of work of this committer (grouped with the accepts on SQLite). */
  readonly #commit: Committer;
  readonly #abort = new AbortController();
  readonly #inFlight = new Map<Channel, Set<Promise<void>>>(CHANNELS.map((c) => [c, new Set()]));
  #running = false;
  #loop: Promise<void> | undefined;
  #wakeUp: (() => void) | undefined;
  #lastTurnAt: number | undefined;
  /** Channels that may have due rows: a commit or the poll names them all, a finished delivery its own. */
  readonly #pending = new Set<Channel>();

  constructor(deps: WorkerDeps, options: WorkerOptions) {
    this.#deps = deps;
    this.#options = options;
    this.#commit = deps.commit ?? transactionPerWork(deps.db);
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#recoverLeases().then(() => this.#run());
  }

  wake(channel?: Channel): void {
    if (channel === undefined) for (const c of CHANNELS) this.#pending.add(c);
    else this.#pending.add(channel);
    this.#wakeUp?.();
  }

  /**
   * When the loop last began a turn (deps.clock): at least once per poll interval while
   * it runs, so a value much older than that means it is stuck (a claim that never
   * returns) or stopped. Undefined before its first turn. /readyz reads it.
   */
  lastTurnAt(): number | undefined {
    return this.#lastTurnAt;
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.#wakeUp?.();
    await this.#loop;
    await this.#settled();
  }

  /** Claims and delivers until nothing is due and nothing is in flight; for tests and benchmarks. */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const started = await this.#claim(CHANNELS, true);
      total += started;
      await this.#settled();
      if (started === 0) return total;
    }
  }

  async #recoverLeases(): Promise<void> {
    if (!this.#deps.capabilities.singleServerProcess) return;
    try {
      const released = await releaseAllLeases(this.#deps.db, this.#deps.clock());
      if (released > 0) this.#deps.logger.warn({ released }, 'released the leases of a previous run that did not stop cleanly; those messages are retried');
    } catch (error) {
      this.#deps.logger.error({ err: error }, 'could not release old leases; they will expire');
    }
  }

  async #run(): Promise<void> {
    this.wake(); // rows may be due from before this start
    while (this.#running) {
      this.#lastTurnAt = this.#deps.clock();
      if (this.#pending.size === 0) await this.#idle();
      if (!this.#running) break;
      const channels = [...this.#pending];
      this.#pending.clear();
      try {
        await this.#claim(channels, false);
      } catch (error) {
        // A store hiccup must not end the loop; the next poll tries again.
        this.#deps.logger.error({ err: error }, 'outbox claim failed');
      }
    }
  }

  /**
   * One claim for each of `channels` that has enough free slots; a channel whose claim
   * came back full may have more due and is named again. A busy channel refills in
   * batches (a quarter of its slots) rather than one slot at a time, which keeps claims
   * few and large. Returns how many deliveries it started.
   */
  async #claim(channels: readonly Channel[], anyFreeSlot: boolean): Promise<number> {
    const { owner, leaseMs, batchSize, concurrency } = this.#options;
    const refillAt = anyFreeSlot ? 1 : Math.max(1, Math.min(batchSize, Math.ceil(concurrency / 4)));
    let started = 0;
    for (const channel of channels) {
      const inFlight = this.#inFlight.get(channel)!;
      const free = concurrency - inFlight.size;
      if (free <= 0 || (inFlight.size > 0 && free < refillAt)) continue;
      const limit = Math.min(free, batchSize);
      const claimed = await claimDue(this.#deps.db, this.#deps.capabilities, { owner, now: this.#deps.clock(), leaseMs, limit, channel }, this.#deps.newId, this.#commit);
      for (const message of claimed) {
        const delivery = this.#deliver(message).finally(() => {
          inFlight.delete(delivery);
          this.wake(channel);
        });
        inFlight.add(delivery);
      }
      if (claimed.length === limit) this.#pending.add(channel);
      started += claimed.length;
    }
    return started;
  }

  async #settled(): Promise<void> {
    for (;;) {
      const pending = [...this.#inFlight.values()].flatMap((set) => [...set]);
      if (pending.length === 0) return;
      await Promise.allSettled(pending);
    }
  }

  /** Sleeps until wake() or the poll timer; the timer names every channel (retries falling due, leases expiring). */
  #idle(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        for (const c of CHANNELS) this.#pending.add(c);
        done();
      }, this.#options.pollMs);
      const done = (): void => {
        clearTimeout(timer);
        this.#wakeUp = undefined;
        resolve();
      };
      this.#wakeUp = done;
    });
  }

  async #deliver(message: ClaimedMessage): Promise<void> {
    try {
      const outcome = await this.#send(message);
      const resolution = await recordOutcome(this.#deps, this.#options.owner, message, outcome);
      this.#deps.metrics?.deliveryObserved(message.channel, resolution);
      // One line per attempt at info: what an operator reads when a peer misbehaves.
      this.#deps.logger.info(
        { msgid: message.msgid, account: message.accountId, channel: message.channel, status: resolution, attempt: message.attempt, peer: outcome.peer, response: outcome.response },
        'delivery outcome',
      );
    } catch (error) {
      // Recording failed (the store is down): the lease expires and the message is retried.
      this.#deps.logger.error({ err: error, msgid: message.msgid }, 'could not record a delivery outcome');
    }
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
      this.#deps.metrics?.unexpectedError('outbox');
      return { kind: 'deferred', peer: transport.name, response: `internal error: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
}
