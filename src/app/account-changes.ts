import type { Account } from '../domain/account.ts';
import { invalidField } from '../domain/admin-input.ts';
import type { EventType } from '../domain/event-catalogue.ts';
import { RejectionError } from '../domain/result.ts';
import { newWebhookSecret } from '../domain/webhook-secret.ts';
import { adjustAccount, findAccount, findAccountIdByName } from '../store/accounts.ts';
import type { Executor, Tx } from '../store/database.ts';
import { appendLedger, appendNotedLedger, type LedgerEntry } from '../store/ledger.ts';
import { setWebhookSecretIfMissing, setWebhookTarget } from '../store/webhook-settings.ts';
import type { AppDeps } from './deps.ts';

// The pieces of work that opening, changing and topping up an account share, each run
// inside the caller's transaction, so no use case calls another for a part of its work.

/** The rejection for a name another account holds (the unique index is the last word under a race). */
export async function refuseTakenName(tx: Executor, name: string, except?: string): Promise<void> {
  const holder = await findAccountIdByName(tx, name, except);
  if (holder !== undefined) throw new RejectionError({ code: 'conflict', detail: `name: is taken by account ${holder} (names are compared without regard to case)` });
}

/**
 * The operator's webhook fields of an account being created or changed, in the caller's
 * transaction: the filter when given, and a secret once the account has a URL (the
 * URL itself is a column of the account row, written with the others).
 */
export async function applyAccountWebhookFields(
  tx: Executor,
  accountId: string,
  input: { readonly webhookUrl?: string | null; readonly webhookEvents?: readonly EventType[] | null },
  now: number,
): Promise<void> {
  const { webhookUrl: url, webhookEvents: events } = input;
  // Setting the URL, even to the one it had, is saving the settings again: it enables a disabled endpoint.
  if (url !== undefined || events !== undefined) {
    await setWebhookTarget(tx, accountId, { ...(url === undefined ? {} : { url }), ...(events === undefined ? {} : { events }) }, now);
  }
  if (typeof url === 'string') await giveWebhookSecret(tx, accountId);
}

/** An account's first signing secret, once it has a URL; a secret it already has is kept. */
export async function giveWebhookSecret(tx: Executor, accountId: string): Promise<void> {
  await setWebhookSecretIfMissing(tx, accountId, newWebhookSecret());
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
