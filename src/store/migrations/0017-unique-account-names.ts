import { sql, type Kysely } from 'kysely';

// Account names are unique without regard to case (issue 14), so an operator who has
// lost an account's id finds it by its name. Names that already clash keep the oldest
// account's as it is; each later one gets " (2)", " (3)"… until it is free, so no
// account is lost or merged and the operator can rename them afterwards. Compared
// with JS's toLowerCase, which folds at least what the index's lower() folds (SQLite
// folds ASCII only), so every clash the index would see is renamed first.
export async function up(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ id: string; name: string }>`select id, name from accounts order by id`.execute(db);
  const taken = new Set<string>();
  const later: { id: string; name: string }[] = [];
  for (const row of rows) {
    const key = row.name.toLowerCase();
    if (taken.has(key)) later.push(row);
    else taken.add(key);
  }
  for (const row of later) {
    let n = 2;
    while (taken.has(`${row.name} (${n})`.toLowerCase())) n++;
    const renamed = `${row.name} (${n})`;
    taken.add(renamed.toLowerCase());
    await sql`update accounts set name = ${renamed} where id = ${row.id}`.execute(db);
  }
  await sql`create unique index accounts_name_unique on accounts (lower(name))`.execute(db);
}
