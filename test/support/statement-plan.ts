import { sql } from 'kysely';
import type { Db } from '../../src/store/database.ts';
import type { Statement } from '../../src/store/prepared-statement.ts';

// The plan PostgreSQL makes for a prepared statement, as EXPLAIN shows it in JSON: the
// generic plan (made once per connection, parameters unknown) or a custom one (made for
// the values given). Made on the test's tables, without statistics unless the test
// analyzes them: the state in which a store's first plans are made (a fresh install, a
// benchmark's fresh database), when the planner guesses every selectivity.

/**
 * The plan of `statement` with `parameters` (SQL literals, e.g. `'sms'`), as EXPLAIN's
 * JSON text, made in a transaction (rolled back) after the statements `before`.
 */
export async function statementPlan(
  db: Db, statement: Statement, parameters: readonly string[], options: { readonly before?: readonly Statement[]; readonly plan?: 'generic' | 'custom' } = {},
): Promise<string> {
  return db.connection().execute(async (connection) => {
    await sql.raw('begin').execute(connection);
    try {
      for (const setup of options.before ?? []) await sql.raw(setup.postgres).execute(connection);
      await sql.raw(`set local plan_cache_mode = force_${options.plan ?? 'generic'}_plan`).execute(connection);
      await sql.raw(`prepare herald_plan_probe as ${statement.postgres}`).execute(connection);
      const { rows } = await sql.raw<{ 'QUERY PLAN': unknown }>(`explain (format json) execute herald_plan_probe(${parameters.join(', ')})`).execute(connection);
      return JSON.stringify(rows[0]?.['QUERY PLAN']);
    } finally {
      await sql.raw('rollback').execute(connection);
      // PREPARE is not undone by a rollback; the connection goes back to the pool.
      await sql.raw('deallocate herald_plan_probe').execute(connection).catch(() => {});
    }
  });
}
