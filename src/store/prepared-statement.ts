// The hot paths' SQL (accept, claim, outcome, webhook enqueue), written once as text.
// Building a statement with Kysely costs more CPU than SQLite takes to run it, and
// these statements run several times per message; everything else uses the builder.
import { CompiledQuery, PostgresAdapter } from 'kysely';
import type { StatementSync } from 'node:sqlite';
import type { Executor } from './database.ts';

/**
 * One SQL statement, written with PostgreSQL's `$1 … $n` placeholders. SQLite reads
 * the same text with `?1 … ?n` (its numbered form), so one text serves both engines.
 */
export interface Statement {
  readonly postgres: string;
  readonly sqlite: string;
  /** The name it is prepared under on each PostgreSQL connection (parsed and planned once per connection). */
  readonly name: string;
}

const byPostgresText = new Map<string, Statement>();

/** Declares a statement; the same text always gives the same Statement (and prepared name). */
export function statement(text: string): Statement {
  const known = byPostgresText.get(text);
  if (known) return known;
  const declared: Statement = { postgres: text, sqlite: text.replace(/\$(\d+)/g, '?$1'), name: `herald_${byPostgresText.size + 1}` };
  byPostgresText.set(text, declared);
  return declared;
}

/** The prepared-statement name of a PostgreSQL text, if it was declared here (store/postgres/connection.ts). */
export function preparedName(postgresText: string): string | undefined {
  return byPostgresText.get(postgresText)?.name;
}

/**
 * A statement whose text depends on a count (an `IN (…)` list, rows of a VALUES), each
 * text declared once, the first time its count is asked for.
 */
export function statementPerCount(text: (count: number) => string): (count: number) => Statement {
  const declared = new Map<number, Statement>();
  return (count) => {
    let known = declared.get(count);
    if (!known) declared.set(count, (known = statement(text(count))));
    return known;
  };
}

/** `$from, $from+1, …` — `count` placeholders, for `IN (…)` lists and multi-row VALUES. */
export function placeholders(from: number, count: number): string {
  return Array.from({ length: count }, (_, i) => `$${from + i}`).join(', ');
}

/** `INSERT INTO table (columns) VALUES …` for any number of rows (see insertAll). */
export interface RowsInsert {
  /** The statement for `rows` rows, declared once per row count. */
  forRows(rows: number): Statement;
}

/** `tail` follows the VALUES, as in `on conflict (a, b) do nothing`. */
export function insertRows(table: string, columns: readonly string[], tail = ''): RowsInsert {
  const forRows = statementPerCount((rows) => {
    const values = Array.from({ length: rows }, (_, r) => `(${placeholders(r * columns.length + 1, columns.length)})`);
    return `insert into ${table} (${columns.join(', ')}) values ${values.join(', ')}${tail === '' ? '' : ` ${tail}`}`;
  });
  return { forRows };
}

// SQLite caps bound parameters per statement (32766); 500 rows of up to 14 columns stay below.
const ROWS_PER_STATEMENT = 500;

/**
 * Inserts rows (arrays in the order of the insert's columns). Over the network
 * (PostgreSQL) one statement carries many rows; straight on node:sqlite one prepared
 * single-row statement per row is 4× cheaper than a multi-row VALUES (measured: 4 vs
 * 17 µs a row of `messages`).
 */
export async function insertAll(db: Executor, insert: RowsInsert, rows: readonly (readonly unknown[])[]): Promise<void> {
  const direct = directConnections.get(db);
  if (direct) {
    const single = direct.statement(insert.forRows(1).sqlite);
    for (const row of rows) single.run(...row.map(toSqliteValue));
    return;
  }
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    const part = rows.slice(i, i + ROWS_PER_STATEMENT);
    await execute(db, insert.forRows(part.length), part.flat());
  }
}

/** The statements of one open SQLite connection, cached by text (store/postgres/connection.ts). */
export interface SqliteStatements {
  statement(sqliteText: string): StatementSync;
}

// A transaction that owns the SQLite connection (the group committer's) runs its
// prepared statements straight on node:sqlite: no builder, no driver, no promise per statement.
const directConnections = new WeakMap<Executor, SqliteStatements>();

/** While `tx` holds the connection exclusively, its statements may go straight to it. */
export function bindDirect(tx: Executor, connection: SqliteStatements): void {
  directConnections.set(tx, connection);
}

export function unbindDirect(tx: Executor): void {
  directConnections.delete(tx);
}

type SqliteValue = null | number | bigint | string | NodeJS.ArrayBufferView;

/** A parameter as node:sqlite binds it: booleans as 0/1 (herald's flag columns), undefined as NULL. */
export function toSqliteValue(value: unknown): SqliteValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value as SqliteValue;
}

/** Whether `db` is PostgreSQL's, for the few statements written for one engine only. */
export function onPostgres(db: Executor): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

function compiled(db: Executor, declared: Statement, parameters: readonly unknown[]): CompiledQuery {
  const text = onPostgres(db) ? declared.postgres : declared.sqlite;
  return CompiledQuery.raw(text, [...parameters]);
}

/** Runs a statement that returns rows (SELECT, or anything with RETURNING). */
export async function queryRows<Row>(db: Executor, declared: Statement, parameters: readonly unknown[]): Promise<Row[]> {
  const direct = directConnections.get(db);
  if (direct) return direct.statement(declared.sqlite).all(...parameters.map(toSqliteValue)) as Row[];
  const result = await db.executeQuery<Row>(compiled(db, declared, parameters));
  return result.rows as Row[];
}

/** Runs a statement that returns no rows; resolves to the number of rows it changed. */
export async function execute(db: Executor, declared: Statement, parameters: readonly unknown[]): Promise<number> {
  const direct = directConnections.get(db);
  if (direct) return Number(direct.statement(declared.sqlite).run(...parameters.map(toSqliteValue)).changes);
  const result = await db.executeQuery(compiled(db, declared, parameters));
  return Number(result.numAffectedRows ?? 0n);
}

/** Longest `IN (…)` list a store function sends in one statement; longer lists go in parts. */
export const MAX_IN_LIST = 1000;
