import type { Logger } from 'pino';
import type { Outcome, Transport } from '../../channels/channel.ts';
import { CHANNELS, type Channel } from '../../domain/account.ts';
import { isSimulatorRecipient } from '../../domain/simulator.ts';
import type { EmailPayload, Outbound, SmsPayload, WhatsappPayload } from '../../domain/outbound.ts';
import type { Metrics } from '../../metrics/registry.ts';
import type { DialectCapabilities } from '../../store/dialect.ts';
import { transactionPerWork, type Committer } from '../../store/group-commit.ts';
import { LeaseLoop, loopSettings, type LeaseQueue } from '../lease-loop.ts';
import { writeWithRetry } from '../write-retry.ts';
import { claimDue, releaseAllLeases, type ClaimedMessage } from './claim.ts';
import { recordOutcome, type CompletionDeps } from './complete.ts';

export interface Transports {
  readonly email: Transport<EmailPayload>;
  readonly sms: Transport<SmsPayload>;
  readonly whatsapp: Transport<WhatsappPayload>;
}

/**
 * The sandbox's transports (docs/sandbox.md), chosen per message before the configured
 * ones: a simulator recipient's message goes to the simulator, a test key's message to
 * the capture transport of its channel, whatever is configured.
 */
export interface SandboxTransports {
  readonly capture: Transports;
  readonly simulator: Transports;
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

/** How long a stopping worker still tries to write an outcome the store did not take. */
const STOP_RETRY_MS = 10_000;

export const DEFAULT_WORKER_OPTIONS: Omit<WorkerOptions, 'owner'> = { batchSize: 64, concurrency: 128, leaseMs: 5 * 60_000, pollMs: 1000 };

type WorkerDeps = CompletionDeps & {
  capabilities: DialectCapabilities; transports: Transports; logger: Logger;
  /** Absent only in tests that build a bare worker (they use no test keys or simulator recipients). */
  sandbox?: SandboxTransports;
  /** Counts outcomes and transports that throw; absent in tests that build a bare worker. */
  metrics?: Metrics;
  /** Delivery held (app/delivery-hold.ts): nothing is claimed meanwhile. */
  held?: () => boolean;
};

/**
 * The outbox's queue on the lease loop (queue/lease-loop.ts, where the modes are
 * described): one lane per channel, so a slow peer holds only the slots of its own
 * channel; each delivery records its outcome as it comes (queue/outbox/complete.ts).
 */
export class OutboxWorker extends LeaseLoop<Channel, ClaimedMessage> {
  constructor(deps: WorkerDeps, options: WorkerOptions) {
    super(new OutboxQueue(deps, options), ...loopSettings(options, deps));
  }
}

/** What the loop asks of the outbox: claims of one channel's due rows, and one delivery. */
class OutboxQueue implements LeaseQueue<Channel, ClaimedMessage> {
  readonly name = 'outbox';
  readonly lanes = CHANNELS;
  readonly #deps: WorkerDeps;
  readonly #options: WorkerOptions;
  /** Claims and outcomes are units of work of this committer (grouped with the accepts on SQLite). */
  readonly #commit: Committer;
  readonly #abort = new AbortController();
  /** When stop() was called (performance.now()). */
  #stoppingSince: number | undefined;

  constructor(deps: WorkerDeps, options: WorkerOptions) {
    this.#deps = deps;
    this.#options = options;
    this.#commit = deps.commit ?? transactionPerWork(deps.db);
  }

  releaseAllLeases(): Promise<number> {
    return releaseAllLeases(this.#deps.db, this.#deps.clock());
  }

  unwritten(): number {
    return 0;
  }

  starting(): void {
    this.#stoppingSince = undefined;
  }

  stopping(): void {
    this.#stoppingSince ??= performance.now();
  }

  claim(channel: Channel, limit: number): Promise<readonly ClaimedMessage[]> {
    if (limit === 0) return Promise.resolve([]);
    const { owner, leaseMs } = this.#options;
    return claimDue(this.#deps.db, this.#deps.capabilities, { owner, now: this.#deps.clock(), leaseMs, limit, channel }, this.#deps.newId, this.#commit);
  }

  async deliver(message: ClaimedMessage): Promise<void> {
    try {
      const outcome = await this.#send(message);
      // Tried again while the lease lasts (less a tenth for the last write to land).
      const leaseLeftMs = message.claimedAt + this.#options.leaseMs * 0.9 - this.#deps.clock();
      const resolution = await writeWithRetry(() => recordOutcome(this.#deps, this.#options.owner, message, outcome), {
        windowMs: leaseLeftMs,
        onFirstFailure: (error) => this.#deps.logger.warn({ err: error, msgid: message.msgid }, 'could not record a delivery outcome yet; trying again while the lease lasts'),
        // A stop (SIGTERM) waits for the deliveries in flight: not for a whole lease of a store that is away.
        giveUp: () => this.#stoppingSince !== undefined && performance.now() - this.#stoppingSince > STOP_RETRY_MS,
      });
      this.#deps.metrics?.deliveryObserved(message.channel, resolution);
      // One line per attempt at info: what an operator reads when a peer misbehaves.
      this.#deps.logger.info(
        { msgid: message.msgid, reqId: message.requestId ?? undefined, account: message.accountId, channel: message.channel, status: resolution, attempt: message.attempt, peer: outcome.peer, response: outcome.response },
        'delivery outcome',
      );
    } catch (error) {
      // Recording failed for the whole lease (the store is down): the lease expires and the message is retried.
      this.#deps.logger.error({ err: error, msgid: message.msgid, reqId: message.requestId ?? undefined }, 'could not record a delivery outcome');
    }
  }

  /** Simulator recipients first (they never go anywhere), then a test key's capture, then what is configured. */
  #transportOf(message: ClaimedMessage): Transport<unknown> {
    const sandbox = this.#deps.sandbox;
    if (sandbox !== undefined && isSimulatorRecipient(message.channel, message.recipient)) return sandbox.simulator[message.channel] as Transport<unknown>;
    if (sandbox !== undefined && message.mode === 'test') return sandbox.capture[message.channel] as Transport<unknown>;
    return this.#deps.transports[message.channel] as Transport<unknown>;
  }

  async #send(message: ClaimedMessage): Promise<Outcome> {
    const transport = this.#transportOf(message);
    const outbound: Outbound<unknown> = {
      msgid: message.msgid, accountId: message.accountId, attempt: message.attempt, recipient: message.recipient, payload: message.payload,
    };
    try {
      return await transport.send(outbound, this.#abort.signal);
    } catch (error) {
      // A transport that throws has a bug or met something unforeseen; treat it as
      // transient so the message is retried rather than lost, and say why.
      this.#deps.logger.error({ err: error, msgid: message.msgid, reqId: message.requestId ?? undefined }, 'transport threw');
      this.#deps.metrics?.unexpectedError('outbox');
      return { kind: 'deferred', peer: transport.name, response: `internal error: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
}
