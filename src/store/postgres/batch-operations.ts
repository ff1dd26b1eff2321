import type { BatchOperations } from '../engine.ts';
import { debitBalanceWithEntry, debitMessagesWithEntry } from './batch-debits.ts';
import { recordLeasedOutcome } from './leased-outcome.ts';
import { receiptsTogether } from './peer-receipt.ts';
import { insertSendRows } from './send-rows.ts';
import { recordAttemptsInOne } from './webhook-attempts.ts';

// PostgreSQL's batch operations (store/engine.ts): each a batch of writes folded into
// one statement of data-modifying CTEs over arrays, where the plain statements would
// cost a round trip each. The modules named say what each statement does.

export const postgresBatchOperations: BatchOperations = {
  endLease: recordLeasedOutcome,
  recordAttempts: recordAttemptsInOne,
  debitMessagesWithEntry,
  debitBalanceWithEntry,
  insertSendRows,
  receipts: receiptsTogether,
};
