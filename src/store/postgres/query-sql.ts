import { sql, type SqlBool } from 'kysely';
import { likePattern, type QuerySql } from '../query-sql.ts';

// PostgreSQL casts JSON text to jsonb where a query looks inside.

export const POSTGRES_QUERY_SQL: QuerySql = {
  typeAt: (json, path) =>
    sql<string | null>`(case jsonb_typeof(cast(${json} as jsonb) #> ${[...path]}::text[]) when 'boolean' then cast(${json} as jsonb) #>> ${[...path]}::text[] else jsonb_typeof(cast(${json} as jsonb) #> ${[...path]}::text[]) end)`,
  textAt: (json, path) =>
    sql<string | null>`(case when jsonb_typeof(cast(${json} as jsonb) #> ${[...path]}::text[]) = 'string' then cast(${json} as jsonb) #>> ${[...path]}::text[] end)`,
  numberAt: (json, path) =>
    sql<number | null>`(case when jsonb_typeof(cast(${json} as jsonb) #> ${[...path]}::text[]) = 'number' then cast(cast(${json} as jsonb) #>> ${[...path]}::text[] as double precision) end)`,
  arrayHasText: (json, path, value) =>
    sql<SqlBool>`(jsonb_typeof(cast(${json} as jsonb) #> ${[...path]}::text[]) = 'array' and (cast(${json} as jsonb) #> ${[...path]}::text[]) @> jsonb_build_array(${value}::text))`,
  containsText: (text, needle) => sql<SqlBool>`(${text} ilike ${likePattern(needle)} escape '\\')`,
  bytewise: (text) => sql<string | null>`(${text} collate "C")`,
  isFalse: (json, key) => sql<SqlBool>`((cast(${json} as jsonb) -> ${key}::text) = 'false'::jsonb)`,
};
