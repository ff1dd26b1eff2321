import type { Executor } from './database.ts';
import type { LedgerEntry } from './ledger.ts';
import { queryRows, statement } from './prepared-statement.ts';

// The prepaid-message debits of a group-commit batch on PostgreSQL, taken once per
// account at the end of the batch (store/group-commit.ts runs it). A debit locks the
// account's row until the commit, and batches of the other lane and of other processes
// debiting that account wait for it: taken per unit, the lock was held from the batch's
// first debit through every later unit's statements to the commit; taken at the end, it
// is held for one statement and the COMMIT.
//
// Semantics kept: each send is answered the messages left exactly as if the debits had
// run one by one in the batch's order (the account's figure after the batch's total,
// plus what the later units of the batch took), each send has its own ledger entry, and
// when an account cannot cover the batch's total nothing of the batch is kept: the batch
// runs again with a savepoint and an immediate debit per unit (the path without this),
// so a send that would overdraw is refused exactly as before.
// What runs before the debits (the units' inserts, a test key's read of the account)
// does not read what a debit writes, so the batch is as if those units had come first.

/** One send's debit, waiting for the end of its batch. */
interface Waiting {
  readonly entry: LedgerEntry;
  readonly now: number;
  readonly unit: number;
  resolve(value: { messagesLeft: number } | null): void;
  reject(error: unknown): void;
}

/** A batch's total for an account was more than it had: the batch is run again the per-unit way. */
export class BatchDebitShort extends Error {
  readonly accountId: string;
  constructor(accountId: string) {
    super(`the batch's debits exceed what account ${accountId} has left`);
    this.name = 'BatchDebitShort';
    this.accountId = accountId;
  }
}

/**
 * The debits of one batch. The committer tells it which unit runs (`unit`), a unit's
 * debit waits in it (`wait`) until the committer has started every unit, then `take`
 * debits every account once and answers each waiting unit, in order, through `answer`.
 */
export class BatchDebits {
  readonly #waiting: Waiting[] = [];
  #unit = 0;
  #taking = false;
  #parked: (() => void) | undefined;

  /** Unit `index` runs now; resolves when it waits on a debit (it may finish first instead). */
  unitStarts(index: number): Promise<void> {
    this.#unit = index;
    return new Promise((resolve) => { this.#parked = resolve; });
  }

  /** Whether a debit now waits for the batch's end (false once the batch takes them: then it runs at once). */
  get deferring(): boolean {
    return !this.#taking;
  }

  wait(entry: LedgerEntry, now: number): Promise<{ messagesLeft: number } | null> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ entry, now, unit: this.#unit, resolve, reject });
      this.#parked?.();
    });
  }

  /** The units that wait on a debit, in the batch's order. */
  get waitingUnits(): readonly number[] {
    return this.#waiting.map((w) => w.unit);
  }

  /**
   * One statement for the whole batch (whatever its accounts): each account debited its
   * total if it has it, and every entry of the accounts debited inserted. Returns, per
   * waiting unit in order, its answer; throws BatchDebitShort when an account is short.
   */
  async take(db: Executor): Promise<ReadonlyMap<number, { messagesLeft: number }>> {
    this.#taking = true;
    const answers = new Map<number, { messagesLeft: number }>();
    if (this.#waiting.length === 0) return answers;
    const totals = new Map<string, number>();
    for (const { entry } of this.#waiting) totals.set(entry.accountId, (totals.get(entry.accountId) ?? 0) - entry.messagesDelta);
    // Sorted, so two batches that debit the same accounts lock them in the same order.
    const accounts = [...totals.keys()].sort();
    const entries = this.#waiting.map((w) => w.entry);
    const rows = await queryRows<{ id: string; messages_left: number | string }>(db, TAKE_BATCH_DEBITS, [
      accounts, accounts.map((id) => totals.get(id)), Math.max(...this.#waiting.map((w) => w.now)),
      entries.map((e) => e.id), entries.map((e) => e.accountId), entries.map((e) => e.at), entries.map((e) => e.messagesDelta),
      entries.map((e) => e.reason), entries.map((e) => e.sendId),
    ]);
    const left = new Map(rows.map((row) => [row.id, Number(row.messages_left)]));
    const short = accounts.find((id) => !left.has(id));
    if (short !== undefined) throw new BatchDebitShort(short);
    // Walking back from the last unit: each is answered what was left once it (and every unit before it) took its share.
    for (let i = this.#waiting.length - 1; i >= 0; i -= 1) {
      const { entry, unit } = this.#waiting[i] as Waiting;
      const after = left.get(entry.accountId) ?? 0;
      answers.set(unit, { messagesLeft: after });
      left.set(entry.accountId, after - entry.messagesDelta);
    }
    return answers;
  }

  /** Hands unit `index` its debit's answer (it then goes on to its end). */
  answer(index: number, answers: ReadonlyMap<number, { messagesLeft: number }>): void {
    for (const w of this.#waiting) if (w.unit === index) w.resolve(answers.get(index) ?? null);
  }

  /** The batch is given up (rolled back): every unit still waiting hears so, and ends. */
  abandon(error: unknown): void {
    for (const w of this.#waiting) w.reject(error);
  }
}

// One text whatever the batch holds (arrays, not a VALUES per count): prepared once per connection.
const TAKE_BATCH_DEBITS = statement(`
  with total as (select * from unnest($1::text[], $2::bigint[]) as t(account_id, messages)),
       debit as (update accounts a set messages_left = a.messages_left - t.messages, updated_at = $3
                 from total t
                 where a.id = t.account_id and a.messages_left >= t.messages
                 returning a.id, a.messages_left),
       entry as (insert into ledger (id, account_id, at, messages_delta, balance_delta, reason, send_id)
                 select e.id, e.account_id, e.at, e.messages_delta, 0, e.reason, e.send_id
                 from unnest($4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::text[], $9::text[])
                        as e(id, account_id, at, messages_delta, reason, send_id)
                 join debit d on d.id = e.account_id)
  select id, messages_left from debit`);

// The batch a transaction runs, while its units may defer their debits to it.
const batches = new WeakMap<Executor, BatchDebits>();

export function bindBatchDebits(tx: Executor, debits: BatchDebits): void {
  batches.set(tx, debits);
}

export function unbindBatchDebits(tx: Executor): void {
  batches.delete(tx);
}

/** The batch `tx` belongs to, if it defers debits and has not taken them yet. */
export function deferringBatch(tx: Executor): BatchDebits | undefined {
  const batch = batches.get(tx);
  return batch?.deferring === true ? batch : undefined;
}
