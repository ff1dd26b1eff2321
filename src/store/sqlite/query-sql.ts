import { sql, type SqlBool } from 'kysely';
import { likePattern, type QuerySql } from '../query-sql.ts';

// SQLite reads JSON text with its JSON functions (json_type, json_extract, json_each).

const sqlitePath = (path: readonly string[]): string => `$${path.map((key) => `."${key}"`).join('')}`;

export const SQLITE_QUERY_SQL: QuerySql = {
  typeAt: (json, path) => sql<string | null>`(case json_type(${json}, ${sqlitePath(path)}) when 'text' then 'string' when 'integer' then 'number' when 'real' then 'number' else json_type(${json}, ${sqlitePath(path)}) end)`,
  textAt: (json, path) => sql<string | null>`(case when json_type(${json}, ${sqlitePath(path)}) = 'text' then json_extract(${json}, ${sqlitePath(path)}) end)`,
  numberAt: (json, path) => sql<number | null>`(case when json_type(${json}, ${sqlitePath(path)}) in ('integer', 'real') then json_extract(${json}, ${sqlitePath(path)}) end)`,
  arrayHasText: (json, path, value) =>
    sql<SqlBool>`(json_type(${json}, ${sqlitePath(path)}) = 'array' and exists (select 1 from json_each(${json}, ${sqlitePath(path)}) as item where item.type = 'text' and item.value = ${value}))`,
  containsText: (text, needle) => sql<SqlBool>`(${text} like ${likePattern(needle)} escape '\\')`,
  bytewise: (text) => sql<string | null>`${text}`,
  isFalse: (json, key) => sql<SqlBool>`(json_type(${json}, ${sqlitePath([key])}) = 'false')`,
};
