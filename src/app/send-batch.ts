import type { Account } from '../domain/account.ts';
import type { KeyMode } from '../domain/key-mode.ts';
import { ok, reject, RejectionError, type Rejection, type Result } from '../domain/result.ts';
import type { Tx } from '../store/database.ts';
import { insertSends, type SendWithMessages } from '../store/messages.ts';
import { commitOrReject } from './commit-or-reject.ts';
import { chargeMessagesTogether } from './send-charge.ts';
import type { LedgerReason } from '../store/ledger.ts';
import type { AppDeps } from './deps.ts';
import {
  chargeEmailSend, checkEmailSend, emailAnswer, emailMessagesOf, emailSendRows, emailSendsCommitted,
  type EmailAccepted, type EmailSend, type PreparedEmailSend,
} from './send-email.ts';
import {
  chargeSmsSend, checkSmsSend, smsAnswer, smsMessagesOf, smsSendRows, smsSendsCommitted, type PreparedSmsSend, type SmsAccepted, type SmsSend,
} from './send-sms.ts';
import { isJsonObject, ownField } from '../domain/json-object.ts';
import { optedOutAmong } from '../store/consent-ledger.ts';
import { suppressedAmong } from '../store/suppressions.ts';

// POST /v1/email/batch and /v1/sms/batch (README "Batch sends"): an array of the single
// send's bodies, each checked exactly as the single send checks it, answered item by
// item in order. Every accepted item is stored and billed in ONE unit of work (so one
// Idempotency-Key covers the batch: the keyed committer commits once), each with its own
// send and ledger entry. An item that would overdraw is refused alone, the items after it
// still go; with `atomic`, any refused item refuses the whole batch and nothing is stored.

export const BATCH_ITEM_FALLBACK_DETAIL = 'a batch item takes no fallback: send a chain on its own';

/** Most items in one batch. */
export const MAX_BATCH_ITEMS = 500;
/** Most recipients (email addresses, mobile numbers) of a batch's items in all: the unit of work's size. */
export const MAX_BATCH_RECIPIENTS = 10_000;
/** Most characters of content (subjects and parts as rendered, or texts) of a batch's items in all: what it holds in memory. */
export const MAX_BATCH_CHARACTERS = 20 * 1024 * 1024;

/** An item's refusal as the single send's error body, with its status. */
export type ItemError = { readonly status: number } & Readonly<Record<string, unknown>>;

/** The batch's 200 body: per item, in order, the single send's 200 body or its ItemError. */
export interface BatchAnswer<A> {
  readonly data: readonly (A | ItemError)[];
}

export interface BatchOptions {
  /** Any refused item refuses the batch (its rejection, with `index`), nothing stored. */
  readonly atomic: boolean;
  /** The wire's error body of a rejection (http/wire-errors.ts), for the items refused. */
  readonly itemError: (rejection: Rejection) => ItemError;
}

/** One channel's single send in the pieces a batch runs: checks and reads, then its part of the unit of work. */
interface BatchChannel<C, P extends { readonly sendId: string }, A> {
  /** What the items are, for the refusal of a body that is no batch. */
  readonly items: string;
  /** The single send's checks of one item, in the interface's order. */
  check(deps: AppDeps, account: Account, body: unknown, mode: KeyMode): Promise<Result<C>>;
  /** What the item adds to the batch's bounds: its recipients, and its content (subject and parts, or text) in characters. */
  size(checked: C): { readonly recipients: number; readonly characters: number };
  /** The checked items' messages, in their order, with the recipients' state (suppressed, opted out) read for all at once. */
  prepare(deps: AppDeps, account: Account, mode: KeyMode, checked: readonly C[]): Promise<P[]>;
  /** Prepaid messages the item takes (none with a test key), under `reason` in the ledger. */
  cost(prepared: P, mode: KeyMode): number;
  readonly reason: LedgerReason;
  /** The item's debit alone, in the unit of work: what the account has left, or null when it would overdraw (the item is then not stored). */
  charge(tx: Tx, deps: AppDeps, account: Account, mode: KeyMode, prepared: P, now: number): Promise<number | null>;
  rows(deps: AppDeps, account: Account, prepared: P, now: number): SendWithMessages;
  answer(prepared: P, left: number): A;
  committed(deps: AppDeps, stored: readonly P[]): void;
}

const EMAIL: BatchChannel<EmailSend, PreparedEmailSend, EmailAccepted> = {
  items: 'emails',
  check: checkEmailSend,
  size: ({ listed, payload }) => ({
    recipients: listed.length, characters: payload.subject.length + (payload.html?.length ?? 0) + (payload.text?.length ?? 0),
  }),
  async prepare(deps, account, mode, checked) {
    const addresses = [...new Set(checked.flatMap((send) => send.listed.map((r) => r.email.toLowerCase())))];
    const suppressed = new Set<string>();
    for (let i = 0; i < addresses.length; i += READ_CHUNK) {
      for (const address of await suppressedAmong(deps.db, account.id, addresses.slice(i, i + READ_CHUNK))) suppressed.add(address);
    }
    return checked.map((send) => emailMessagesOf(deps, mode, send, suppressed));
  },
  cost: (prepared, mode) => (mode === 'live' ? prepared.billed : 0),
  reason: 'email.send',
  // The answer of an email carries no balance: 0 stands for "charged".
  charge: async (tx, deps, account, mode, prepared, now) => ((await chargeEmailSend(tx, deps, account, mode, prepared, now)) ? 0 : null),
  rows: emailSendRows,
  answer: emailAnswer,
  committed: emailSendsCommitted,
};

const SMS: BatchChannel<SmsSend, PreparedSmsSend, SmsAccepted> = {
  items: 'SMS sends',
  check: async (deps, account, body, mode) => checkSmsSend(deps, account, body, mode),
  size: ({ numbers, payload }) => ({ recipients: numbers.length, characters: payload.text.length }),
  async prepare(deps, account, mode, checked) {
    // Opt-outs are per sender: one read (in parts) per sender the items use, most often one.
    const optedOut = new Map<string, ReadonlySet<string>>();
    for (const sender of new Set(checked.map((send) => send.sender))) {
      const numbers = [...new Set(checked.filter((send) => send.sender === sender).flatMap((send) => send.numbers))];
      optedOut.set(sender, await optedOutAmong(deps.db, account.id, 'sms', numbers, sender));
    }
    return checked.map((send) => smsMessagesOf(deps, mode, send, optedOut.get(send.sender) ?? new Set()));
  },
  cost: (prepared, mode) => (mode === 'live' ? prepared.cost : 0),
  reason: 'sms.send',
  charge: chargeSmsSend,
  rows: smsSendRows,
  answer: smsAnswer,
  committed: smsSendsCommitted,
};

/** POST /v1/email/batch. */
export function sendEmailBatch(deps: AppDeps, account: Account, body: unknown, mode: KeyMode, options: BatchOptions): Promise<Result<BatchAnswer<EmailAccepted>>> {
  return sendBatch(deps, account, body, mode, options, EMAIL);
}

/** POST /v1/sms/batch. */
export function sendSmsBatch(deps: AppDeps, account: Account, body: unknown, mode: KeyMode, options: BatchOptions): Promise<Result<BatchAnswer<SmsAccepted>>> {
  return sendBatch(deps, account, body, mode, options, SMS);
}

type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly rejection: Rejection };

/** Most recipients read in one statement (store/prepared-statement.ts MAX_IN_LIST): a batch's 10,000 go in parts. */
const READ_CHUNK = 1000;

async function sendBatch<C, P extends { readonly sendId: string }, A>(
  deps: AppDeps, account: Account, body: unknown, mode: KeyMode, options: BatchOptions, channel: BatchChannel<C, P, A>,
): Promise<Result<BatchAnswer<A>>> {
  if (!Array.isArray(body) || body.length === 0 || body.length > MAX_BATCH_ITEMS) {
    return reject('invalidField', { detail: `the body must be an array of 1 to ${MAX_BATCH_ITEMS} ${channel.items}` });
  }
  // Every item is checked and the reads made before the unit of work, which then only writes.
  const results: Result<C>[] = [];
  let recipients = 0;
  let characters = 0;
  for (const [index, item] of body.entries()) {
    // A chain is reserved and released per send (docs/fallback.md); a batch item's is refused rather than left unread.
    const result: Result<C> = isJsonObject(item) && ownField(item, 'fallback') !== undefined
      ? reject('invalidField', { detail: BATCH_ITEM_FALLBACK_DETAIL })
      : await channel.check(deps, account, item, mode);
    if (!result.ok && options.atomic) return reject(result.rejection.code, { ...result.rejection, index });
    results.push(result);
    if (!result.ok) continue;
    const size = channel.size(result.value);
    recipients += size.recipients;
    characters += size.characters;
    // Rendered templates can each be as large as HERALD_MAX_RENDERED_LENGTH: the batch as a whole is bounded too.
    if (recipients > MAX_BATCH_RECIPIENTS) return reject('invalidField', { detail: `a batch's items have at most ${MAX_BATCH_RECIPIENTS} recipients in all` });
    if (characters > MAX_BATCH_CHARACTERS) return reject('invalidField', { detail: `a batch's items have at most ${MAX_BATCH_CHARACTERS} characters of content in all` });
  }
  const prepared = await channel.prepare(deps, account, mode, results.flatMap((result) => (result.ok ? [result.value] : [])));
  let next = 0;
  const checked: Checked<P>[] = results.map((result) => (result.ok ? { ok: true, value: prepared[next++] as P } : result));

  const now = deps.clock();
  let stored: P[] = [];
  // One unit of work for the whole batch: the debits, then the accepted items' rows together (a few multi-row
  // statements rather than some per item). It may run more than once (store/group-commit.ts): `stored` is set afresh.
  const committed = await commitOrReject(deps.commit, async (tx): Promise<BatchAnswer<A>> => {
    const accepted = checked.flatMap((item) => (item.ok ? [item.value] : []));
    const lefts = (await chargedTogether(tx, deps, account, mode, channel, accepted, now)) ?? await chargedOneByOne(tx, deps, account, mode, channel, checked, options.atomic, now);
    stored = accepted.filter((prepared) => lefts.has(prepared));
    if (stored.length > 0) await insertSends(tx, stored.map((prepared) => channel.rows(deps, account, prepared, now)));
    return {
      data: checked.map((item) => {
        if (!item.ok) return options.itemError(item.rejection);
        const left = lefts.get(item.value);
        return left === undefined ? options.itemError({ code: 'noMessagesLeft' }) : channel.answer(item.value, left);
      }),
    };
  });
  if (!committed.ok) return committed;
  channel.committed(deps, stored);
  return ok(committed.value);
}

/**
 * Every item's debit in one (the usual case: the account has enough for the batch): the
 * messages left after each item, as if debited one by one in order; undefined when the
 * total would overdraw (nothing taken).
 */
async function chargedTogether<C, P extends { readonly sendId: string }, A>(
  tx: Tx, deps: AppDeps, account: Account, mode: KeyMode, channel: BatchChannel<C, P, A>, accepted: readonly P[], now: number,
): Promise<Map<P, number> | undefined> {
  const costs = accepted.map((prepared) => channel.cost(prepared, mode));
  const sends = accepted.map((prepared, i) => ({ sendId: prepared.sendId, amount: costs[i] ?? 0 }));
  const left = await chargeMessagesTogether(tx, { account, now, reason: channel.reason, ledgerId: deps.newId, sends });
  if (left === null) return undefined;
  const lefts = new Map<P, number>();
  let after = left;
  for (let i = accepted.length - 1; i >= 0; i -= 1) {
    lefts.set(accepted[i] as P, after);
    after += costs[i] ?? 0;
  }
  return lefts;
}

/**
 * The account cannot pay for every item: each item's debit alone, in order, so an item
 * that would overdraw is left out and the later ones still go (with `atomic`, it refuses
 * the batch). The messages left after each item debited.
 */
async function chargedOneByOne<C, P extends { readonly sendId: string }, A>(
  tx: Tx, deps: AppDeps, account: Account, mode: KeyMode, channel: BatchChannel<C, P, A>, checked: readonly Checked<P>[], atomic: boolean, now: number,
): Promise<Map<P, number>> {
  const lefts = new Map<P, number>();
  for (const [index, item] of checked.entries()) {
    if (!item.ok) continue;
    const left = await channel.charge(tx, deps, account, mode, item.value, now);
    if (left === null && atomic) throw new RejectionError({ code: 'noMessagesLeft', index });
    if (left !== null) lefts.set(item.value, left);
  }
  return lefts;
}
