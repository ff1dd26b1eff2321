import type { Account } from '../domain/account.ts';
import { invalidField, type AccountUpdateInput } from '../domain/admin-input.ts';
import { RejectionError, type Result } from '../domain/result.ts';
import { adjustAccount, findAccount, setAccountAmounts, updateAccount as updateAccountRow } from '../store/accounts.ts';
import type { Tx } from '../store/database.ts';
import { appendLedger, appendNotedLedger, type LedgerEntry, type LedgerReason } from '../store/ledger.ts';
import { commitOrReject } from './commit-or-reject.ts';
import { refuseTakenName } from './create-account.ts';
import type { AppDeps } from './deps.ts';
import { applyAccountWebhookFields } from './webhook-settings.ts';

// A compare-and-set that keeps failing means something rewrites the account in a
// loop; on SQLite (write lock taken at BEGIN) the first attempt always succeeds.
const SET_ATTEMPTS = 5;

/**
 * PATCH /admin/v1/accounts/:id. Plain fields are written as given; messages and
 * money only ever move through the ledger, so it always sums to what the account
 * holds: an absolute set writes its delta as `admin.set`, a top-up as `admin.top-up`.
 * All of it is one transaction.
 */
export async function updateAccount(deps: AppDeps, accountId: string, input: AccountUpdateInput): Promise<Result<Account>> {
  const { messagesLeft, balance, addMessages = 0, addBalance = 0, ...plain } = input;
  const now = deps.clock();

  return commitOrReject(deps.db, async (tx) => {
    let current = await findAccount(tx, accountId);
    if (!current) throw new RejectionError({ code: 'notFound' });

    if (plain.name !== undefined) await refuseTakenName(tx, plain.name, accountId);
    if (Object.keys(plain).length > 0) await updateAccountRow(tx, accountId, now, plain);
    // The filter lives beside the columns above; a URL set now gets its signing secret.
    await applyAccountWebhookFields(tx, accountId, plain, now);

    if (messagesLeft !== undefined || balance !== undefined) {
      current = await setAmounts(deps, tx, current, { messagesLeft, balance }, now);
    }
    if (addMessages !== 0 || addBalance !== 0) await topUp(deps, tx, current, { messages: addMessages, balance: addBalance, note: null }, now);

    const updated = await findAccount(tx, accountId);
    if (!updated) throw new Error(`account ${accountId} vanished inside its own update`);
    return updated;
  });
}

async function setAmounts(
  deps: AppDeps,
  tx: Tx,
  current: Account,
  wanted: { messagesLeft: number | undefined; balance: number | undefined },
  now: number,
): Promise<Account> {
  let before = current;
  for (let attempt = 1; ; attempt++) {
    const target = { messagesLeft: wanted.messagesLeft ?? before.messagesLeft, balance: wanted.balance ?? before.balance };
    if (await setAccountAmounts(tx, before.id, before, target, now)) {
      await record(deps, tx, before.id, target.messagesLeft - before.messagesLeft, target.balance - before.balance, 'admin.set', now);
      return { ...before, ...target };
    }
    if (attempt === SET_ATTEMPTS) throw new Error(`account ${before.id} kept changing while its amounts were set`);
    const reread = await findAccount(tx, before.id);
    if (!reread) throw new RejectionError({ code: 'notFound' });
    before = reread;
  }
}

/** Names of the fields a top-up came in, for the error detail. */
const TOP_UP_FIELD_NAMES = { messages: 'addMessages', balance: 'addBalance' } as const;

/**
 * Adds (or, negative, removes) messages and money in one conditional update, with its
 * `admin.top-up` ledger entry carrying the operator's words when given; refused when
 * the account would go below zero. Runs inside the caller's transaction.
 */
export async function topUp(
  deps: AppDeps, tx: Tx, current: Account,
  change: { readonly messages: number; readonly balance: number; readonly note: string | null },
  now: number, fields: { readonly messages: string; readonly balance: string } = TOP_UP_FIELD_NAMES,
): Promise<LedgerEntry> {
  const { messages, balance } = change;
  // Counts are read back as JS numbers: past 2^53 they would silently round.
  if (!Number.isSafeInteger(current.messagesLeft + messages)) throw rejection(invalidField(fields.messages, 'the account would hold too many messages'));
  if (!Number.isSafeInteger(current.balance + balance)) throw rejection(invalidField(fields.balance, 'the account would hold too much money'));
  // adjustAccount refuses atomically; which field is at fault is read afterwards.
  if (!(await adjustAccount(tx, current.id, messages, balance, now))) {
    const latest = (await findAccount(tx, current.id)) ?? current;
    const field = latest.messagesLeft + messages < 0 ? fields.messages : fields.balance;
    throw rejection(invalidField(field, 'the account would go below zero'));
  }
  const entry = { id: deps.newId(), accountId: current.id, at: now, messagesDelta: messages, balanceDelta: balance, reason: 'admin.top-up' as const, sendId: null };
  if (change.note === null) await appendLedger(tx, entry);
  else await appendNotedLedger(tx, { ...entry, note: change.note });
  return { ...entry, note: change.note };
}

const rejection = (result: ReturnType<typeof invalidField>): RejectionError => new RejectionError(result.rejection);

async function record(deps: AppDeps, tx: Tx, accountId: string, messagesDelta: number, balanceDelta: number, reason: LedgerReason, now: number): Promise<void> {
  // A set to the value already held moves nothing, and the ledger lists movements only.
  if (messagesDelta === 0 && balanceDelta === 0) return;
  await appendLedger(tx, { id: deps.newId(), accountId, at: now, messagesDelta, balanceDelta, reason, sendId: null });
}
