import { DEBIT_MESSAGES, debitBalance } from '../accounts.ts';
import type { Executor } from '../database.ts';
import { appendLedger, type LedgerEntry } from '../ledger.ts';
import { queryRows, statement } from '../prepared-statement.ts';

// The debits of a group-commit batch on PostgreSQL (prepaid messages, and WhatsApp's
// money), taken once per
// account at the end of the batch (store/group-commit.ts runs it). A debit locks the
// account's row until the commit, and batches of the other lane and of other processes
// debiting that account wait for it: taken per unit, the lock was held from the batch's
// first debit through every later unit's statements to the commit; taken at the end, it
// is held for one statement and the COMMIT.
//
// Semantics kept: each send is answered the messages (or money) left exactly as if the
// debits had run one by one in the batch's order (the account's figure after the batch's
// total, plus what the later units of the batch took), each send has its own ledger entry, and
// when an account cannot cover the batch's total nothing of the batch is kept: the batch
// runs again with a savepoint and an immediate debit per unit (the path without this),
// so a send that would overdraw is refused exactly as before.
// What runs before the debits (the units' inserts, a test key's read of the account)
// does not read what a debit writes, so the batch is as if those units had come first.

/** What an account has left after a debit. */
export interface Left {
  readonly messagesLeft: number;
  readonly balance: number;
}

/** One send's debit (minus the entry's deltas), waiting for the end of its batch. */
interface Waiting {
  readonly entry: LedgerEntry;
  readonly now: number;
  readonly unit: number;
  resolve(value: Left): void;
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

  wait(entry: LedgerEntry, now: number): Promise<Left> {
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
  async take(db: Executor): Promise<ReadonlyMap<number, Left>> {
    this.#taking = true;
    const answers = new Map<number, Left>();
    if (this.#waiting.length === 0) return answers;
    const totals = new Map<string, Left>();
    for (const { entry } of this.#waiting) {
      const total = totals.get(entry.accountId) ?? { messagesLeft: 0, balance: 0 };
      totals.set(entry.accountId, { messagesLeft: total.messagesLeft - entry.messagesDelta, balance: total.balance - entry.balanceDelta });
    }
    // Sorted, so two batches that debit the same accounts lock them in the same order.
    const accounts = [...totals.keys()].sort();
    const entries = this.#waiting.map((w) => w.entry);
    const rows = await queryRows<{ id: string; messages_left: number | string; balance: number | string }>(db, TAKE_BATCH_DEBITS, [
      accounts, accounts.map((id) => totals.get(id)?.messagesLeft), accounts.map((id) => totals.get(id)?.balance),
      Math.max(...this.#waiting.map((w) => w.now)),
      entries.map((e) => e.id), entries.map((e) => e.accountId), entries.map((e) => e.at), entries.map((e) => e.messagesDelta),
      entries.map((e) => e.balanceDelta), entries.map((e) => e.reason), entries.map((e) => e.sendId),
    ]);
    const left = new Map(rows.map((row): [string, Left] => [row.id, { messagesLeft: Number(row.messages_left), balance: Number(row.balance) }]));
    const short = accounts.find((id) => !left.has(id));
    if (short !== undefined) throw new BatchDebitShort(short);
    // Walking back from the last unit: each is answered what was left once it (and every unit before it) took its share.
    for (let i = this.#waiting.length - 1; i >= 0; i -= 1) {
      const { entry, unit } = this.#waiting[i] as Waiting;
      const after = left.get(entry.accountId) ?? { messagesLeft: 0, balance: 0 };
      answers.set(unit, after);
      left.set(entry.accountId, { messagesLeft: after.messagesLeft - entry.messagesDelta, balance: after.balance - entry.balanceDelta });
    }
    return answers;
  }

  /** Hands unit `index` its debit's answer (it then goes on to its end). */
  answer(index: number, answers: ReadonlyMap<number, Left>): void {
    const answer = answers.get(index);
    for (const w of this.#waiting) if (w.unit === index && answer !== undefined) w.resolve(answer);
  }

  /** The batch is given up (rolled back): every unit still waiting hears so, and ends. */
  abandon(error: unknown): void {
    for (const w of this.#waiting) w.reject(error);
  }
}

// One text whatever the batch holds (arrays, not a VALUES per count): prepared once per connection.
// Both figures are checked for every account: neither can be negative (a CHECK), so a total of 0 always passes.
const TAKE_BATCH_DEBITS = statement(`
  with total as (select * from unnest($1::text[], $2::bigint[], $3::bigint[]) as t(account_id, messages, money)),
       debit as (update accounts a set messages_left = a.messages_left - t.messages, balance = a.balance - t.money, updated_at = $4
                 from total t
                 where a.id = t.account_id and a.messages_left >= t.messages and a.balance >= t.money
                 returning a.id, a.messages_left, a.balance),
       entry as (insert into ledger (id, account_id, at, messages_delta, balance_delta, reason, send_id)
                 select e.id, e.account_id, e.at, e.messages_delta, e.balance_delta, e.reason, e.send_id
                 from unnest($5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::bigint[], $10::text[], $11::text[])
                        as e(id, account_id, at, messages_delta, balance_delta, reason, send_id)
                 join debit d on d.id = e.account_id)
  select id, messages_left, balance from debit`);

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

/**
 * A send's prepaid messages with its ledger entry: in a batch of the group committer,
 * the debit waits for the batch's end, where the batch's debits are one statement (no
 * round trip of the send's own); alone (a batch of one, or a batch run again with
 * savepoints), one statement, one round trip (a data-modifying CTE).
 */
export async function debitMessagesWithEntry(db: Executor, entry: LedgerEntry, now: number): Promise<{ messagesLeft: number } | null> {
  const batch = deferringBatch(db);
  if (batch !== undefined) return { messagesLeft: (await batch.wait(entry, now)).messagesLeft };
  const [row] = await queryRows<{ messages_left: number }>(db, DEBIT_MESSAGES_WITH_ENTRY, [
    -entry.messagesDelta, now, entry.accountId, entry.id, entry.at, entry.messagesDelta, entry.balanceDelta, entry.reason, entry.sendId,
  ]);
  return row ? { messagesLeft: Number(row.messages_left) } : null;
}

const DEBIT_MESSAGES_WITH_ENTRY = statement(`
  with debit as (${DEBIT_MESSAGES.postgres}),
       entry as (insert into ledger (id, account_id, at, messages_delta, balance_delta, reason, send_id)
                 select $4, $3, $5, $6, $7, $8, $9 from debit)
  select messages_left from debit`);

/** A send's money with its ledger entry: deferred to the batch's end like debitMessagesWithEntry, else the two statements. */
export async function debitBalanceWithEntry(db: Executor, entry: LedgerEntry, now: number): Promise<{ balance: number } | null> {
  const batch = deferringBatch(db);
  if (batch !== undefined) return { balance: (await batch.wait(entry, now)).balance };
  const debited = await debitBalance(db, entry.accountId, -entry.balanceDelta, now);
  if (debited) await appendLedger(db, entry);
  return debited;
}
