import { sql, type ColumnDataType, type CreateTableBuilder, type Kysely, type SqlBool } from 'kysely';

// The column patterns herald's tables repeat, written once so that a migration reads as
// its table. Each helper makes the very builder calls it replaces, so the SQL each engine
// runs is unchanged (test/store/migrated-schema.test.ts compares it with a snapshot).
// Not a migration: migrate.ts lists those by name.

type Table = CreateTableBuilder<string, string>;
/** A run of columns (or a constraint) of a table being created: a part of createTable. */
export type Columns = (table: Table) => Table;

/** `id`: the row's UUIDv7, its primary key. */
export const idKey: Columns = (table) => table.addColumn('id', 'text', (c) => c.primaryKey());

/** A column naming a row of `target` (e.g. `'lists.id'`); the row is deleted with it. */
export const belongsTo = (column: string, target: string): Columns => (table) =>
  table.addColumn(column, 'text', (c) => c.notNull().references(target).onDelete('cascade'));

/** `id`, then `account_id`: a row an account owns, and which goes with it. */
export const accountRow: Columns = (table) => belongsTo('account_id', 'accounts.id')(idKey(table));

/** Columns, in order, that always hold a value. */
export const required = (type: ColumnDataType, ...names: string[]): Columns => (table) =>
  names.reduce((built, name) => built.addColumn(name, type, (c) => c.notNull()), table);

/** Columns, in order, that may be null. */
export const nullable = (type: ColumnDataType, ...names: string[]): Columns => (table) =>
  names.reduce((built, name) => built.addColumn(name, type), table);

/** Columns, in order, that always hold a value and start at `value`. */
export const startingAt = (value: number | string, type: ColumnDataType, ...names: string[]): Columns => (table) =>
  names.reduce((built, name) => built.addColumn(name, type, (c) => c.notNull().defaultTo(value)), table);

/** `created_at`, `updated_at`: epoch milliseconds. */
export const stamps: Columns = required('bigint', 'created_at', 'updated_at');

/** A leased row's holder and the lease's end (a worker's claim; queue/ owns leases). */
export const lease: Columns = (table) => table.addColumn('lease_owner', 'text').addColumn('lease_expires_at', 'bigint');

/** Nullable columns added to an existing table, one statement each (SQLite adds one column at a time). */
export async function addNullable(db: Kysely<unknown>, table: string, columns: Readonly<Record<string, ColumnDataType>>): Promise<void> {
  for (const [name, type] of Object.entries(columns)) await db.schema.alterTable(table).addColumn(name, type).execute();
}

/** Columns added to an existing table that always hold a value, existing rows taking `value`; one statement each. */
export async function addStartingAt(db: Kysely<unknown>, table: string, value: number | string, columns: Readonly<Record<string, ColumnDataType>>): Promise<void> {
  for (const [name, type] of Object.entries(columns)) {
    await db.schema.alterTable(table).addColumn(name, type, (c) => c.notNull().defaultTo(value)).execute();
  }
}

/** A primary key of its own column (a text id other than `id`), optionally naming the row it belongs to. */
export const textKey = (column: string, target?: string): Columns => (table) =>
  table.addColumn(column, 'text', (c) => (target === undefined ? c.primaryKey() : c.primaryKey().references(target).onDelete('cascade')));

/** A primary key over several columns. */
export const primaryKey = (name: string, columns: readonly string[]): Columns => (table) => table.addPrimaryKeyConstraint(name, [...columns]);

/** A unique constraint over several columns. */
export const unique = (name: string, columns: readonly string[]): Columns => (table) => table.addUniqueConstraint(name, [...columns]);

/** A check constraint, its condition in SQL both engines read alike. */
export const check = (name: string, condition: string): Columns => (table) => table.addCheckConstraint(name, sql.raw<SqlBool>(condition));

/** Creates table `name` from its parts (columns and constraints), in the order given. */
export async function createTable(db: Kysely<unknown>, name: string, parts: readonly Columns[]): Promise<void> {
  await parts.reduce((table, part) => part(table), db.schema.createTable(name) as Table).execute();
}
