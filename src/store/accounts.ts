import { sql } from 'kysely';
import type { Account, Channel } from '../domain/account.ts';
import type { AccountRow, AccountsTable, Executor } from './database.ts';
import type { AccountInput } from '../domain/admin-input.ts';
import { batchOperationsOf } from './engine.ts';
import { appendLedger, type LedgerEntry } from './ledger.ts';
import { queryRows, statement } from './prepared-statement.ts';

export function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    name: row.name,
    active: row.active === 1,
    messagesLeft: Number(row.messages_left),
    balance: Number(row.balance),
    whatsappPrice: Number(row.whatsapp_price),
    rateLimitPerSecond: row.rate_limit_per_second,
    ipAllowList: JSON.parse(row.ip_allow_list) as string[],
    // Anything but `keys` binds sessions too: an unreadable value must not open the door.
    allowListAppliesTo: row.allow_list_applies_to === 'keys' ? 'keys' : 'all',
    services: { email: row.email_enabled === 1, sms: row.sms_enabled === 1, whatsapp: row.whatsapp_enabled === 1 },
    webhookUrl: row.webhook_url,
    tracking: { opens: row.track_opens === 1, clicks: row.track_clicks === 1 },
    whatsappPhoneNumberId: row.whatsapp_phone_number_id,
    whatsappAccessTokenSet: row.whatsapp_access_token !== null,
    whatsappBusinessAccountId: row.whatsapp_business_account_id,
    smsSenders: row.sms_senders === null ? [] : (JSON.parse(row.sms_senders) as string[]),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** The columns an operator may change, in domain terms (declared with the input rules in domain/). */
export type AccountChanges = AccountInput;

function toColumns(changes: AccountChanges): Partial<AccountsTable> {
  const columns: Partial<AccountsTable> = {};
  if (changes.name !== undefined) columns.name = changes.name;
  if (changes.active !== undefined) columns.active = changes.active ? 1 : 0;
  if (changes.messagesLeft !== undefined) columns.messages_left = changes.messagesLeft;
  if (changes.balance !== undefined) columns.balance = changes.balance;
  if (changes.whatsappPrice !== undefined) columns.whatsapp_price = changes.whatsappPrice;
  if (changes.rateLimitPerSecond !== undefined) columns.rate_limit_per_second = changes.rateLimitPerSecond;
  if (changes.ipAllowList !== undefined) columns.ip_allow_list = JSON.stringify(changes.ipAllowList);
  if (changes.allowListAppliesTo !== undefined) columns.allow_list_applies_to = changes.allowListAppliesTo;
  if (changes.services?.email !== undefined) columns.email_enabled = changes.services.email ? 1 : 0;
  if (changes.services?.sms !== undefined) columns.sms_enabled = changes.services.sms ? 1 : 0;
  if (changes.services?.whatsapp !== undefined) columns.whatsapp_enabled = changes.services.whatsapp ? 1 : 0;
  if (changes.webhookUrl !== undefined) columns.webhook_url = changes.webhookUrl;
  if (changes.whatsappPhoneNumberId !== undefined) columns.whatsapp_phone_number_id = changes.whatsappPhoneNumberId;
  if (changes.whatsappAccessToken !== undefined) columns.whatsapp_access_token = changes.whatsappAccessToken;
  if (changes.whatsappBusinessAccountId !== undefined) columns.whatsapp_business_account_id = changes.whatsappBusinessAccountId;
  if (changes.tracking?.opens !== undefined) columns.track_opens = changes.tracking.opens ? 1 : 0;
  if (changes.tracking?.clicks !== undefined) columns.track_clicks = changes.tracking.clicks ? 1 : 0;
  // Null, never '[]', for none: the lead's reply routing skips accounts whose column is null.
  if (changes.smsSenders !== undefined) columns.sms_senders = changes.smsSenders === null || changes.smsSenders.length === 0 ? null : JSON.stringify(changes.smsSenders);
  return columns;
}

export async function insertAccount(db: Executor, id: string, now: number, fields: AccountChanges & { name: string }): Promise<Account> {
  const row: AccountsTable = {
    id, name: fields.name, active: 1, messages_left: 0, balance: 0, whatsapp_price: 0, rate_limit_per_second: 2,
    ip_allow_list: '[]', allow_list_applies_to: 'all', email_enabled: 1, sms_enabled: 1, whatsapp_enabled: 1, webhook_url: null,
    whatsapp_phone_number_id: null, whatsapp_access_token: null, whatsapp_business_account_id: null,
    webhook_events: null, webhook_secret: null, webhook_secret_previous: null, webhook_secret_previous_until: null,
    webhook_disabled_at: null, webhook_disabled_reason: null, webhook_description: null,
    track_opens: 1, track_clicks: 1,
    sms_senders: null, sms_keywords: null, sms_help_text: null, sms_stop_text: null, sms_start_text: null,
    created_at: now, updated_at: now, ...toColumns(fields),
  };
  await db.insertInto('accounts').values(row).execute();
  return toAccount(row);
}

/**
 * The id of the account with this name, compared as the unique index does (lower()),
 * other than `except`; undefined when the name is free.
 */
export async function findAccountIdByName(db: Executor, name: string, except?: string): Promise<string | undefined> {
  const row = await db.selectFrom('accounts').select('id')
    .where(sql<boolean>`lower(name) = lower(${name})`)
    .$if(except !== undefined, (q) => q.where('id', '!=', except ?? ''))
    .executeTakeFirst();
  return row?.id;
}

/** Read for every authenticated request: a prepared statement (store/prepared-statement.ts). */
export async function findAccount(db: Executor, id: string): Promise<Account | undefined> {
  const [row] = await queryRows<AccountRow>(db, FIND_ACCOUNT, [id]);
  return row && toAccount(row);
}

const FIND_ACCOUNT = statement('select * from accounts where id = $1');

/** The Cloud API credentials of an account, when both halves are set; for the WhatsApp transport only. */
export async function findWhatsappCredentials(db: Executor, id: string): Promise<{ phoneNumberId: string; accessToken: string } | undefined> {
  const row = await db
    .selectFrom('accounts')
    .select(['whatsapp_phone_number_id', 'whatsapp_access_token'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row || row.whatsapp_phone_number_id === null || row.whatsapp_access_token === null) return undefined;
  return { phoneNumberId: row.whatsapp_phone_number_id, accessToken: row.whatsapp_access_token };
}

/** Where an account's templates are submitted: its WhatsApp Business account and token, when both are set. */
export async function findWhatsappBusiness(db: Executor, id: string): Promise<{ businessAccountId: string; accessToken: string } | undefined> {
  const row = await db.selectFrom('accounts').select(['whatsapp_business_account_id', 'whatsapp_access_token']).where('id', '=', id).executeTakeFirst();
  if (!row || row.whatsapp_business_account_id === null || row.whatsapp_access_token === null) return undefined;
  return { businessAccountId: row.whatsapp_business_account_id, accessToken: row.whatsapp_access_token };
}

/**
 * The accounts that send from a Cloud API phone number. Usually one; accounts that
 * share a number share its customer-service windows too, as Meta keeps them per number.
 */
export async function findAccountIdsByPhoneNumberId(db: Executor, phoneNumberId: string): Promise<string[]> {
  const rows = await db.selectFrom('accounts').select('id').where('whatsapp_phone_number_id', '=', phoneNumberId).execute();
  return rows.map((r) => r.id);
}

export async function updateAccount(db: Executor, id: string, now: number, changes: AccountChanges): Promise<void> {
  await db.updateTable('accounts').set({ ...toColumns(changes), updated_at: now }).where('id', '=', id).execute();
}

/**
 * Takes `count` prepaid messages if the account has them, in one conditional UPDATE:
 * the row lock (PostgreSQL) or the write lock (SQLite) makes check-and-debit atomic,
 * so concurrent sends can never overdraw the account.
 */
export async function debitMessages(db: Executor, id: string, count: number, now: number): Promise<{ messagesLeft: number } | null> {
  const [row] = await queryRows<{ messages_left: number }>(db, DEBIT_MESSAGES, [count, now, id]);
  return row ? { messagesLeft: Number(row.messages_left) } : null;
}

export const DEBIT_MESSAGES = statement(`
  update accounts set messages_left = messages_left - $1, updated_at = $2
  where id = $3 and messages_left >= $1
  returning messages_left`);

/**
 * debitMessages of a send and its ledger entry (`entry.messagesDelta` is minus the
 * count), the entry written only when the debit took: the engine's way (store/engine.ts).
 * SQLite runs the two in process; PostgreSQL, in a batch of the group committer, takes
 * the batch's debits together at its end, else one statement (store/postgres/batch-debits.ts).
 */
export function debitMessagesWithEntry(db: Executor, entry: LedgerEntry, now: number): Promise<{ messagesLeft: number } | null> {
  return batchOperationsOf(db).debitMessagesWithEntry(db, entry, now);
}

/**
 * debitBalance of a send and its ledger entry (`entry.balanceDelta` is minus the amount),
 * the entry written only when the debit took; deferred to the batch's end on PostgreSQL
 * like debitMessagesWithEntry, else the two statements.
 */
export function debitBalanceWithEntry(db: Executor, entry: LedgerEntry, now: number): Promise<{ balance: number } | null> {
  return batchOperationsOf(db).debitBalanceWithEntry(db, entry, now);
}

/**
 * Gives back what a message or a reservation was billed and never used (`entry`'s deltas, both
 * zero or more): the account credited and its `refund` ledger entry, in the caller's transaction.
 * Nothing when there is nothing to give (a test key's message, a dropped one).
 */
export async function refundWithEntry(db: Executor, entry: Omit<LedgerEntry, 'reason'>, now: number): Promise<void> {
  if (entry.messagesDelta === 0 && entry.balanceDelta === 0) return;
  await adjustAccount(db, entry.accountId, entry.messagesDelta, entry.balanceDelta, now);
  await appendLedger(db, { ...entry, reason: 'refund' });
}

/** Same as debitMessages, for money (WhatsApp). */
export async function debitBalance(db: Executor, id: string, amount: number, now: number): Promise<{ balance: number } | null> {
  const [row] = await queryRows<{ balance: number }>(db, DEBIT_BALANCE, [amount, now, id]);
  return row ? { balance: Number(row.balance) } : null;
}

const DEBIT_BALANCE = statement(`
  update accounts set balance = balance - $1, updated_at = $2
  where id = $3 and balance >= $1
  returning balance`);

/** Adds (or with a negative delta, removes) messages and money; refuses to go below zero. */
export async function adjustAccount(db: Executor, id: string, messagesDelta: number, balanceDelta: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('accounts')
    .set((eb) => ({
      messages_left: eb('messages_left', '+', messagesDelta),
      balance: eb('balance', '+', balanceDelta),
      updated_at: now,
    }))
    .where('id', '=', id)
    .where((eb) => eb.and([eb('messages_left', '>=', -messagesDelta), eb('balance', '>=', -balanceDelta)]))
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/**
 * Sets messages and balance only while they still hold `expected` (compare-and-set),
 * so the ledger delta computed from `expected` is exactly what changed even if a
 * send debited the account in between; false means "re-read and try again".
 */
export async function setAccountAmounts(
  db: Executor,
  id: string,
  expected: { readonly messagesLeft: number; readonly balance: number },
  target: { readonly messagesLeft: number; readonly balance: number },
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('accounts')
    .set({ messages_left: target.messagesLeft, balance: target.balance, updated_at: now })
    .where('id', '=', id)
    .where('messages_left', '=', expected.messagesLeft)
    .where('balance', '=', expected.balance)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

export interface AccountSummaryRecord {
  readonly account: Account;
  /** Users of the account, invited ones included. */
  readonly users: number;
}

/**
 * The operator's account list, newest first (ids are UUIDv7), a keyset page at a time:
 * accounts whose name contains `q` (without regard to case) or whose id is `q`.
 */
export async function listAccountSummaries(db: Executor, filter: { q?: string; before?: string; limit: number }): Promise<AccountSummaryRecord[]> {
  const q = filter.q;
  const rows = await db
    .selectFrom('accounts')
    .selectAll('accounts')
    .select((eb) => eb.selectFrom('users').select(eb.fn.countAll<number | string>().as('n')).whereRef('users.account_id', '=', 'accounts.id').as('user_count'))
    .$if(q !== undefined, (query) => query.where((eb) => eb.or([
      eb('accounts.id', '=', q ?? ''),
      sql<boolean>`lower(accounts.name) like ${`%${(q ?? '').toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`} escape '\\'`,
    ])))
    .$if(filter.before !== undefined, (query) => query.where('accounts.id', '<', filter.before ?? ''))
    .orderBy('accounts.id', 'desc')
    .limit(filter.limit)
    .execute();
  return rows.map((row) => ({ account: toAccount(row), users: Number(row.user_count ?? 0) }));
}
