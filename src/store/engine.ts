import type { DialectAdapter } from 'kysely';
import type { Channel } from '../domain/account.ts';
import type { MessageStatus } from '../domain/message-status.ts';
import type { Executor, Tx } from './database.ts';
import type { LedgerEntry } from './ledger.ts';
import type { QuerySql } from './query-sql.ts';
import type { EventSubject } from './webhook-deliveries.ts';
import type { BatchedWrite } from './write-together.ts';

// The seam between herald and its two storage engines, in Kysely's manner: as Kysely
// asks the dialect's adapter how to speak to the engine, herald asks it for the engine's
// batch operations (store/sqlite/batch-operations.ts, store/postgres/batch-operations.ts).
// They write the same rows; PostgreSQL folds a batch into one statement (a round trip
// saved per statement), SQLite runs the plain statements in process. Nothing outside
// store/ asks which engine it is on; claims choose by capabilities.skipLocked.

/** A worker's outcome for one claimed message, written only while it holds the lease. */
export interface LeasedOutcome {
  readonly messageId: string;
  /** The worker's lease: nothing is written unless the outbox row is still under it. */
  readonly owner: string;
  /** A retry: the outbox row is kept, due at this time; absent: the row is removed (done). */
  readonly retryAt?: number;
  /** The status moves to this only from one of its predecessors (as store/messages.ts recordEvent moves it). */
  readonly status: MessageStatus;
  readonly eventId: string;
  readonly at: number;
  readonly data: Readonly<Record<string, unknown>>;
  readonly providerRef?: string;
  /** When the attempt was claimed: its `sending` step, kept on the event (store/message-timeline.ts). */
  readonly sendingAt: number;
}

/** What recording an event did (store/messages.ts recordEvent). */
export interface LeasedOutcomeEffects {
  readonly moved: boolean;
  readonly webhookQueued: boolean;
}

/** A webhook delivery's next step after an attempt (queue/webhooks/retry-policy.ts NextStep). */
export type DeliveryNextStep =
  | { readonly status: 'succeeded' | 'failed' }
  | { readonly status: 'pending'; readonly nextAttemptAt: number };

/** One finished attempt's outcome, as recorded (queue/webhooks/record.ts AttemptRecord adds what the log and a 410 need). */
export interface AttemptOutcome {
  readonly deliveryId: string;
  /** This attempt's number (attempts made before it + 1); unchanged when nothing was posted. */
  readonly attempts: number;
  readonly at: number;
  /** null when nothing was posted (no webhook URL, webhooks disabled): no attempt row, the delivery just moves on. */
  readonly url: string | null;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly durationMs: number;
  readonly next: DeliveryNextStep;
}

/** What recording attempts writes with: the time of the write and the attempt rows' ids. */
export interface AttemptWrite {
  readonly now: number;
  readonly newId: () => string;
}

/** A message a peer's report names, with its webhook subject as read with it. */
export interface ReceiptMessage {
  readonly id: string;
  readonly subject: EventSubject;
}

export interface ReceiptEvent {
  /** The status moves to this only from one of its predecessors (as recordEvent moves it). */
  readonly status: MessageStatus;
  /** The event's type when it is not the status (`read`, recorded on a delivered message). */
  readonly type?: string;
  readonly eventId: string;
  readonly at: number;
  readonly data: Readonly<Record<string, unknown>>;
}

/** A peer's later report on a message it took (an SMPP receipt, a WhatsApp status), to record as its event. */
export interface Receipt {
  readonly channel: Channel;
  /** What the peer knows the message by (SMPP message_id, WhatsApp wamid). */
  readonly providerRef: string;
  readonly event: ReceiptEvent;
}

/** One send's rows as store/messages.ts insertSends lays them out (arrays in the order of its columns). */
export interface SendRows {
  readonly sends: readonly (readonly unknown[])[];
  readonly messages: readonly (readonly unknown[])[];
  readonly outbox: readonly (readonly unknown[])[];
}

/** What each engine does its own way: the writes made many at a time. */
export interface BatchOperations {
  /** The outbox row removed or rescheduled under the lease, and the outcome's event; null when the lease was lost (nothing written). */
  endLease(tx: Tx, outcome: LeasedOutcome): Promise<LeasedOutcomeEffects | null>;
  /** Webhook attempts' outcomes, each moved only while `owner` holds its lease, with their attempt rows; the ids recorded. */
  recordAttempts(tx: Tx, owner: string, records: readonly AttemptOutcome[], write: AttemptWrite): Promise<Set<string>>;
  /** A send's prepaid messages taken with its ledger entry (minus the count in `entry.messagesDelta`); null when short. */
  debitMessagesWithEntry(db: Executor, entry: LedgerEntry, now: number): Promise<{ messagesLeft: number } | null>;
  /** A send's money taken with its ledger entry (minus the amount in `entry.balanceDelta`); null when short. */
  debitBalanceWithEntry(db: Executor, entry: LedgerEntry, now: number): Promise<{ balance: number } | null>;
  /** The sends', messages' and outbox rows of accepted sends (none dropped); `oneSend`: all of them are one send's. */
  insertSendRows(db: Executor, rows: SendRows, oneSend: boolean): Promise<void>;
  /**
   * Present where peers' reports that arrive together are recorded together, one
   * statement outside a transaction (PostgreSQL; the group committer's writeTogether);
   * absent: each is a unit of work (store/receipts.ts recordReceipt). True: recorded;
   * false: no message has the reference.
   */
  readonly receipts?: BatchedWrite<Receipt, boolean>;
}

/** The adapter of herald's dialects (store/sqlite/connection.ts, store/postgres/connection.ts). */
export interface EngineAdapter {
  readonly batchOperations: BatchOperations;
  readonly querySql: QuerySql;
}

/** What herald does its own way on the engine `db` runs on, as its dialect's adapter carries it. */
export function engineOf(db: Executor): EngineAdapter {
  const adapter: DialectAdapter & Partial<EngineAdapter> = db.getExecutor().adapter;
  if (adapter.batchOperations === undefined || adapter.querySql === undefined) throw new Error('a store not opened by store/dialect.ts openStore has no engine seam');
  return adapter as DialectAdapter & EngineAdapter;
}

/** The batch operations of the engine `db` runs on. */
export function batchOperationsOf(db: Executor): BatchOperations {
  return engineOf(db).batchOperations;
}
