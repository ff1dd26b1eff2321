import { debitBalance, debitMessages } from '../accounts.ts';
import type { BatchOperations } from '../engine.ts';
import { appendLedger } from '../ledger.ts';
import { insertSendRowsApart, recordEvent } from '../messages.ts';
import { execute, statement } from '../prepared-statement.ts';
import { recordAttemptGroups } from './webhook-attempts.ts';

// SQLite's batch operations (store/engine.ts): the plain statements one after the
// other. They run in process, on the group committer's connection: there is no round
// trip to save by folding them into one, and SQLite has no INSERT or UPDATE in WITH.

export const sqliteBatchOperations: BatchOperations = {
  async endLease(tx, outcome) {
    const changed = outcome.retryAt === undefined
      ? await execute(tx, RELEASE, [outcome.messageId, outcome.owner])
      : await execute(tx, RESCHEDULE, [outcome.retryAt, outcome.messageId, outcome.owner]);
    if (changed !== 1) return null;
    const { messageId, eventId, at, status, data, providerRef, sendingAt } = outcome;
    return recordEvent(tx, { messageId, eventId, at, status, data, sendingAt, ...(providerRef === undefined ? {} : { providerRef }) });
  },

  recordAttempts: recordAttemptGroups,

  async debitMessagesWithEntry(db, entry, now) {
    const debited = await debitMessages(db, entry.accountId, -entry.messagesDelta, now);
    if (debited) await appendLedger(db, entry);
    return debited;
  },

  async debitBalanceWithEntry(db, entry, now) {
    const debited = await debitBalance(db, entry.accountId, -entry.balanceDelta, now);
    if (debited) await appendLedger(db, entry);
    return debited;
  },

  insertSendRows: (db, rows) => insertSendRowsApart(db, rows),
};

// Both conditioned on the lease: a worker whose lease ran out changes nothing.
const RESCHEDULE = statement(`
  update outbox set available_at = $1, lease_owner = null, lease_expires_at = null, claimed_at = null
  where message_id = $2 and lease_owner = $3`);
const RELEASE = statement('delete from outbox where message_id = $1 and lease_owner = $2');
