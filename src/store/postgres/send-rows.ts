import type { Executor } from '../database.ts';
import type { SendRows } from '../engine.ts';
import { insertSendRowsApart, MESSAGE_COLUMNS, OUTBOX_COLUMNS, SEND_COLUMNS } from '../messages.ts';
import { execute, placeholders, statementPerCount } from '../prepared-statement.ts';

/** A send's rows: one send of a few recipients in one statement, else table by table (store/messages.ts insertSends). */
export async function insertSendRows(db: Executor, rows: SendRows, oneSend: boolean): Promise<void> {
  if (oneSend && rows.messages.length <= SEND_IN_ONE_STATEMENT_MAX) {
    await execute(db, insertSendInOneStatement(rows.messages.length), [...rows.sends.flat(), ...rows.messages.flat(), ...rows.outbox.flat()]);
    return;
  }
  await insertSendRowsApart(db, rows);
}

/** Most recipients a send stores in one statement on PostgreSQL; a larger send's statements are already multi-row. */
const SEND_IN_ONE_STATEMENT_MAX = 50;

/**
 * PostgreSQL: one send of `rows` recipients, none dropped, in ONE statement (one round
 * trip instead of three): data-modifying CTEs, one per table. PostgreSQL checks the
 * foreign keys (messages → sends, outbox → messages) at the end of the statement, when
 * every row is in. SQLite has no INSERT in WITH, and needs none: its statements run in
 * process.
 */
const insertSendInOneStatement = statementPerCount((rows) => {
  let next = 1;
  const values = (columns: readonly string[], count: number): string => Array.from({ length: count }, () => {
    const row = `(${placeholders(next, columns.length)})`;
    next += columns.length;
    return row;
  }).join(', ');
  const send = values(SEND_COLUMNS, 1);
  const messages = values(MESSAGE_COLUMNS, rows);
  const outbox = values(OUTBOX_COLUMNS, rows);
  return `
  with send as (insert into sends (${SEND_COLUMNS.join(', ')}) values ${send}),
       message as (insert into messages (${MESSAGE_COLUMNS.join(', ')}) values ${messages})
  insert into outbox (${OUTBOX_COLUMNS.join(', ')}) values ${outbox}`;
});
