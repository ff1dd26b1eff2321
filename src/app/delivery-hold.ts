import type { Logger } from 'pino';
import type { Db, Executor } from '../store/database.ts';
import { deleteSetting, getSetting, putSettingIfAbsent } from '../store/settings.ts';

// The delivery hold: a flag in the store that keeps every process from delivering the
// outbox and posting webhooks, while the API goes on accepting (messages wait, queued).
// It is set by `herald serve --paused`, by `herald outbox hold`, and in every copy
// `herald backup` makes, so a restored copy never sends again, unreviewed, what the
// original already sent; `herald outbox release` lifts it. Being in the store, it holds
// every process of the installation, whatever their flags, and survives restarts.

export interface DeliveryHold {
  readonly since: number;
  /** Why, in the operator's words or herald's (`started with --paused`, `restored from a backup`). */
  readonly reason: string;
}

const HOLD_KEY = 'delivery_hold';

function parseHold(value: string | undefined): DeliveryHold | undefined {
  if (value === undefined) return undefined;
  try {
    const parsed = JSON.parse(value) as Partial<DeliveryHold>;
    return { since: typeof parsed.since === 'number' ? parsed.since : 0, reason: typeof parsed.reason === 'string' ? parsed.reason : 'held' };
  } catch {
    // Unreadable is still held: releasing is an operator's decision, never a parser's.
    return { since: 0, reason: 'held' };
  }
}

export async function readDeliveryHold(db: Executor): Promise<DeliveryHold | undefined> {
  return parseHold(await getSetting(db, HOLD_KEY));
}

/** Holds delivery; a hold already in place is kept (its time and reason). Returns the hold in effect. */
export async function holdDelivery(db: Executor, hold: DeliveryHold): Promise<DeliveryHold> {
  return parseHold(await putSettingIfAbsent(db, HOLD_KEY, JSON.stringify(hold))) ?? hold;
}

/** Lifts the hold; returns the hold lifted, undefined when there was none. */
export async function releaseDelivery(db: Executor): Promise<DeliveryHold | undefined> {
  const hold = await readDeliveryHold(db);
  await deleteSetting(db, HOLD_KEY);
  return hold;
}

/** The settings a backup writes into its copy: the copy starts with delivery held. */
export function heldCopySettings(at: number): Record<string, string> {
  return { [HOLD_KEY]: JSON.stringify({ since: at, reason: 'restored from a backup' } satisfies DeliveryHold) };
}

// How often a delivering process reads the flag (a periodic job, queue/periodic-job.ts):
// a release (or a hold) takes effect within this, plus the loops' poll.
export const DELIVERY_HOLD_WATCH_MS = 1000;

/**
 * A delivering process's view of the hold, read at start and then every second by the
 * periodic job that calls refresh() (service.ts); the
 * delivery loops ask `held()` before each claim (queue/lease-loop.ts). While the store
 * does not answer, the last reading stands.
 */
export class DeliveryHoldWatch {
  readonly #db: Db;
  readonly #logger: Logger;
  readonly #onRelease: () => void;
  #current: DeliveryHold | undefined;
  #reading: Promise<void> | undefined;

  constructor(deps: { readonly db: Db; readonly logger: Logger; readonly onRelease: () => void }) {
    this.#db = deps.db;
    this.#logger = deps.logger;
    this.#onRelease = deps.onRelease;
  }

  /** Reads the hold before the loops start (the periodic job watches it from then on). */
  start(): Promise<void> {
    return this.refresh();
  }

  readonly held = (): boolean => this.#current !== undefined;

  /** Reads the flag now (tests, and the periodic job). */
  refresh(): Promise<void> {
    this.#reading ??= this.#read().finally(() => (this.#reading = undefined));
    return this.#reading;
  }

  async #read(): Promise<void> {
    let next: DeliveryHold | undefined;
    try {
      next = await readDeliveryHold(this.#db);
    } catch {
      return;
    }
    const was = this.#current;
    this.#current = next;
    if (was === undefined && next !== undefined) {
      this.#logger.warn({ since: new Date(next.since).toISOString(), reason: next.reason }, 'delivery is held: messages are accepted and kept queued, nothing is delivered and no webhook is posted until `herald outbox release`');
    } else if (was !== undefined && next === undefined) {
      this.#logger.info('delivery released: the outbox and webhooks are delivered again');
      this.#onRelease();
    }
  }

  /** Waits for a reading in flight (after its periodic job has stopped). */
  async stop(): Promise<void> {
    await this.#reading;
  }
}
