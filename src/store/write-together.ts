import type { RecordedPublicEvent } from '../domain/event-catalogue.ts';
import type { Db, Tx } from './database.ts';

// Writes the group committer takes many at a time in ONE statement that is atomic by
// itself, outside a transaction (no BEGIN and COMMIT round trips): peers' reports on
// PostgreSQL (store/postgres/peer-receipt.ts). Items of one kind that arrive while a
// batch of that kind is under way wait and go together, on lanes of their own beside
// the committer's; a batch that fails, or items the statement cannot take, are written
// alone, each as a unit of work of the committer (which undoes a failing one alone).

/** What became of one item of a batch written together. */
export type TogetherOutcome<R> =
  /** Written; its answer. */
  | { readonly kind: 'done'; readonly value: R }
  /** Not written: it must follow another item of the batch (two reports on one message), so it waits for the next batch. */
  | { readonly kind: 'later' }
  /** Not written: it is written alone, as a unit of work (after the batch, before any item put back for later). */
  | { readonly kind: 'alone' };

/** A kind of write taken many at a time; one constant per kind (the committer keeps a queue per kind). */
export interface BatchedWrite<I, R> {
  /** Most items in one batch. */
  readonly maxBatch: number;
  /** Batches of this kind under way at once: while one waits on its statement, the items that came meanwhile gather. */
  readonly lanes: number;
  /**
   * Writes the items in one statement, atomic by itself, run outside a transaction; one
   * outcome per item, in order, and the public events written (for the outcome counters).
   * Throwing writes nothing: then every item is written alone.
   */
  together(db: Db, items: readonly I[]): Promise<{ readonly outcomes: readonly TogetherOutcome<R>[]; readonly events: readonly RecordedPublicEvent[] }>;
  /** Writes one item the ordinary way, in a unit of work (it may run more than once: database work only). */
  alone(tx: Tx, item: I): Promise<R>;
}

interface Waiting {
  readonly item: unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  readonly onWritten: (() => void) | undefined;
}

interface KindQueue {
  readonly waiting: Waiting[];
  running: number;
}

/** The group committer's queues of batched writes (store/group-commit.ts groupCommitter). */
export class TogetherQueues {
  readonly #db: Db;
  /** Runs a unit of work through the committer (an item written alone). */
  readonly #runAlone: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  readonly #onEvents: ((events: readonly RecordedPublicEvent[]) => void) | undefined;
  readonly #queues = new Map<BatchedWrite<unknown, unknown>, KindQueue>();
  #running = 0;
  readonly #drained: (() => void)[] = [];

  constructor(db: Db, runAlone: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>, onEvents?: (events: readonly RecordedPublicEvent[]) => void) {
    this.#db = db;
    this.#runAlone = runAlone;
    this.#onEvents = onEvents;
  }

  /** `onWritten`: called once the item is written, once per batch for the items that share it (a wake-up, say). */
  write<I, R>(kind: BatchedWrite<I, R>, item: I, onWritten?: () => void): Promise<R> {
    const general = kind as BatchedWrite<unknown, unknown>;
    let queue = this.#queues.get(general);
    if (queue === undefined) this.#queues.set(general, (queue = { waiting: [], running: 0 }));
    const lanes = queue;
    return new Promise<R>((resolve, reject) => {
      lanes.waiting.push({ item, resolve: resolve as (value: unknown) => void, reject, onWritten });
      // Items written in the same turn of the event loop join this batch.
      if (lanes.running < Math.max(1, kind.lanes)) {
        lanes.running += 1;
        this.#running += 1;
        setImmediate(() => void this.#lane(general, lanes));
      }
    });
  }

  /** Answers every item still waiting with `error`; resolves once the batches under way are settled. */
  async close(error: unknown): Promise<void> {
    for (const queue of this.#queues.values()) for (const waiting of queue.waiting.splice(0)) waiting.reject(error);
    if (this.#running > 0) await new Promise<void>((resolve) => this.#drained.push(resolve));
  }

  async #lane(kind: BatchedWrite<unknown, unknown>, queue: KindQueue): Promise<void> {
    try {
      while (queue.waiting.length > 0) await this.#batch(kind, queue, queue.waiting.splice(0, kind.maxBatch));
    } finally {
      queue.running -= 1;
      this.#running -= 1;
      if (this.#running === 0) for (const done of this.#drained.splice(0)) done();
    }
  }

  async #batch(kind: BatchedWrite<unknown, unknown>, queue: KindQueue, batch: readonly Waiting[]): Promise<void> {
    let written;
    try {
      written = await kind.together(this.#db, batch.map((w) => w.item));
    } catch {
      await this.#alone(kind, batch);
      return;
    }
    if (written.events.length > 0) this.#onEvents?.(written.events);
    const alone = batch.filter((_, i) => written.outcomes[i]?.kind === 'alone');
    // Before the items put back: an item waiting for later follows one of these.
    await this.#alone(kind, alone);
    queue.waiting.unshift(...batch.filter((_, i) => written.outcomes[i]?.kind === 'later'));
    const done = batch.filter((_, i) => written.outcomes[i]?.kind === 'done');
    for (const onWritten of new Set(done.map((w) => w.onWritten))) onWritten?.();
    batch.forEach((waiting, i) => {
      const outcome = written.outcomes[i];
      if (outcome?.kind === 'done') waiting.resolve(outcome.value);
    });
  }

  /** Each item as a unit of work of the committer: they share its batches, and a failing one fails alone. */
  async #alone(kind: BatchedWrite<unknown, unknown>, items: readonly Waiting[]): Promise<void> {
    await Promise.all(items.map((waiting) => this.#runAlone((tx) => kind.alone(tx, waiting.item)).then((value) => {
      waiting.onWritten?.();
      waiting.resolve(value);
    }, waiting.reject)));
  }
}
