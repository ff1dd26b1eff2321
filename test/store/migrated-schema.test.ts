// The schema the migrations produce, on each engine, against a snapshot checked in beside
// the tests. Migrations are history applied on users' databases: rewriting how one is written
// must never change what it creates. A deliberate new migration updates the snapshots:
//   HERALD_WRITE_SCHEMA_SNAPSHOT=1 node --test test/store/migrated-schema.test.ts
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { sql, type Kysely } from 'kysely';
import { openStore } from '../../src/store/dialect.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { freshSchema, TEST_POSTGRES_URL } from '../support/postgres.ts';

const SNAPSHOTS = new URL('../fixtures/schema/', import.meta.url);

function matchesSnapshot(name: string, actual: string): void {
  const file = new URL(name, SNAPSHOTS);
  if (process.env.HERALD_WRITE_SCHEMA_SNAPSHOT === '1') writeFileSync(file, actual);
  assert.equal(actual, readFileSync(file, 'utf8'));
}

async function lines<Row extends Record<string, unknown>>(db: Kysely<unknown>, query: ReturnType<typeof sql<Row>>): Promise<string[]> {
  const { rows } = await query.execute(db);
  return rows.map((row) => Object.values(row).map((value) => String(value)).join(' | '));
}

test('the migrations give a fresh SQLite store exactly the schema of the snapshot', async (t) => {
  const { db } = openStore('sqlite::memory:');
  t.after(() => db.destroy());
  await migrateToLatest(db);
  const schema = await lines(db as Kysely<unknown>, sql<{ type: string; name: string; sql: string | null }>`
    select type, name, sql from sqlite_master where name not like 'kysely_%' order by type, name`);
  matchesSnapshot('sqlite.txt', `${schema.join('\n')}\n`);
});

test('the migrations give a fresh PostgreSQL schema exactly the columns, indexes and constraints of the snapshot', { skip: TEST_POSTGRES_URL === undefined ? 'TEST_POSTGRES_URL is not set' : false }, async (t) => {
  const schema = await freshSchema();
  const { name } = schema;
  const { db } = openStore(schema.url);
  // After-hooks run in the order they are registered: the pool closes, then its schema goes.
  t.after(() => db.destroy());
  t.after(() => schema.drop());
  await migrateToLatest(db);
  const any = db as Kysely<unknown>;
  const columns = await lines(any, sql<Record<string, unknown>>`
    select table_name, ordinal_position, column_name, data_type, is_nullable, coalesce(column_default, '')
    from information_schema.columns where table_schema = ${name} and table_name not like 'kysely_%'
    order by table_name, ordinal_position`);
  const indexes = await lines(any, sql<Record<string, unknown>>`
    select tablename, indexname, replace(indexdef, ${`${name}.`}, '') from pg_indexes
    where schemaname = ${name} and tablename not like 'kysely_%' order by tablename, indexname`);
  const constraints = await lines(any, sql<Record<string, unknown>>`
    select cl.relname, c.conname, c.contype, replace(pg_get_constraintdef(c.oid), ${`${name}.`}, '')
    from pg_constraint c join pg_class cl on cl.oid = c.conrelid join pg_namespace n on n.oid = c.connamespace
    where n.nspname = ${name} and cl.relname not like 'kysely_%' order by cl.relname, c.conname`);
  matchesSnapshot('postgres.txt', ['# columns', ...columns, '# indexes', ...indexes, '# constraints', ...constraints, ''].join('\n'));
});
