import type { Expression, RawBuilder, SqlBool } from 'kysely';

// JSON and text in queries (the segment filter, store/segments.ts): the operations
// whose SQL differs between the engines, each engine's in store/sqlite/query-sql.ts and
// store/postgres/query-sql.ts, reached through store/dialect.ts querySql.

/**
 * The JSON and text operations whose SQL differs between the engines. JSON columns
 * are text in both (written once, read rarely): SQLite reads them with its JSON
 * functions, PostgreSQL casts them to jsonb where a query looks inside. `path` is a
 * list of object keys, always bound as a parameter.
 */
export interface QuerySql {
  /** The JSON type at `path`: 'string' | 'number' | 'true' | 'false' | 'null' | 'object' | 'array'; NULL when absent. */
  typeAt(json: Expression<string>, path: readonly string[]): RawBuilder<string | null>;
  /** The text at `path` when it is a JSON string, else NULL. */
  textAt(json: Expression<string>, path: readonly string[]): RawBuilder<string | null>;
  /** The number at `path` when it is a JSON number, else NULL. */
  numberAt(json: Expression<string>, path: readonly string[]): RawBuilder<number | null>;
  /** Whether the value at `path` is an array holding the string `value`. */
  arrayHasText(json: Expression<string>, path: readonly string[], value: string): RawBuilder<SqlBool>;
  /** Whether `text` contains `needle`, ignoring case (SQLite folds ASCII letters only). */
  containsText(text: Expression<string | null>, needle: string): RawBuilder<SqlBool>;
  /** `text` compared byte by byte (PostgreSQL's default collation would order by locale). */
  bytewise(text: Expression<string | null>): RawBuilder<string | null>;
  /** Whether the JSON object's `key` is `false`. */
  isFalse(json: Expression<string>, key: string): RawBuilder<SqlBool>;
}

/** A LIKE pattern that finds `needle` anywhere, its wildcards escaped (with `escape '\\'`). */
export const likePattern = (needle: string): string => `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
