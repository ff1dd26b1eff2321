import type { DialectCapabilities } from '../store/dialect.ts';
import { statement, type Statement } from '../store/prepared-statement.ts';

// A claim of a lease queue picks its rows in a subquery. On PostgreSQL several processes
// claim at once, so the pick takes its rows `for update skip locked` and claimers pass
// each other; SQLite serialises writers and has no such clause. The two texts differ in
// that clause only: one text, written once, with `${lock}` where the clause goes.

/** A claim statement and its SKIP LOCKED twin, chosen by the store's capabilities. */
export type LeaseStatement = (capabilities: DialectCapabilities) => Statement;

/** Declares both statements of `text` (called with '' and with ' for update skip locked'). */
export function leaseStatement(text: (lock: string) => string): LeaseStatement {
  const serialised = statement(text(''));
  const skipLocked = statement(text(' for update skip locked'));
  return (capabilities) => (capabilities.skipLocked ? skipLocked : serialised);
}
