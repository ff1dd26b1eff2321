// PostgreSQL for tests: every service gets a schema of its own in the database named by
// TEST_POSTGRES_URL, so test files run side by side (and beside other runs) in one
// database. Creating and migrating a schema costs far more than most tests, so a
// schema whose test has ended is emptied and handed to the next service of the same
// test process. Under test/run-postgres.ts (HERALD_TEST_RUN set) a process that ends
// hands its emptied schemas on to the run's later processes (renamed t_…_<run>_idle…,
// taken by renaming again); otherwise it drops them. The runner drops what its run left.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openStore } from '../../src/store/dialect.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';

/** The server given to the test run, if any (`.ci/run` sets it). */
export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL;

/**
 * Test schemas are named t_<creation time, base 36>_<run>_<random>: the runner drops
 * its own run's when it ends, and any older than an hour (runs that were killed).
 */
const RUN = process.env.HERALD_TEST_RUN ?? 'solo';
const MIGRATION_TABLES = new Set(['kysely_migration', 'kysely_migration_lock']);

/** One short-lived connection for administrative statements (schemas, databases). */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function baseUrl(): string {
  if (TEST_POSTGRES_URL === undefined || TEST_POSTGRES_URL === '') throw new Error('TEST_POSTGRES_URL is not set');
  return TEST_POSTGRES_URL;
}

/** `url` with its connections' search_path set to `schema` (libpq's `options` parameter). */
export function urlWithSchema(url: string, schema: string): string {
  const withSchema = new URL(url);
  withSchema.searchParams.set('options', `-c search_path=${schema}`);
  return withSchema.href;
}

export interface TestSchema {
  readonly name: string;
  /** TEST_POSTGRES_URL with search_path set to the schema. */
  readonly url: string;
  /** Drops the schema and everything in it; call after closing whatever uses it. */
  drop(): Promise<void>;
}

/** A new, empty, unmigrated schema in the test database (or in the database at `url`). */
export async function freshSchema(url?: string): Promise<TestSchema> {
  const base = url ?? baseUrl();
  const name = newSchemaName();
  await withClient(base, (client) => client.query(`create schema ${name}`));
  return testSchema(base, name);
}

const newSchemaName = (): string => `t_${Date.now().toString(36)}_${RUN}_${randomBytes(5).toString('hex')}`;

function testSchema(base: string, name: string): TestSchema {
  return {
    name,
    url: urlWithSchema(base, name),
    drop: () => withClient(base, async (client) => { await client.query(`drop schema if exists ${name} cascade`); }),
  };
}

/** Emptied, migrated schemas are handed from process to process only within a run of test/run-postgres.ts. */
const HAND_ON = process.env.HERALD_TEST_RUN !== undefined;
const IDLE_PATTERN = `t\\_%\\_${RUN}\\_idle%`;

/**
 * A migrated, empty schema an ended process of this run handed on, renamed to a name of
 * this process; undefined when there is none. Two processes may reach for the same one:
 * the rename succeeds for one, and the other tries the next.
 */
async function takeHandedOnSchema(): Promise<TestSchema | undefined> {
  const base = baseUrl();
  return withClient(base, async (client) => {
    const { rows } = await client.query<{ nspname: string }>('select nspname from pg_namespace where nspname like $1', [IDLE_PATTERN]);
    for (const { nspname } of rows.sort(() => Math.random() - 0.5)) {
      const name = newSchemaName();
      const renamed = await client.query(`alter schema ${client.escapeIdentifier(nspname)} rename to ${name}`).then(() => true, () => false);
      if (renamed) return testSchema(base, name);
    }
    return undefined;
  });
}

export interface ServiceSchema {
  readonly url: string;
  /** After the service is closed: empties the schema for the next service, or drops it if the test changed its tables. */
  release(): Promise<void>;
}

interface Migrated {
  readonly schema: TestSchema;
  /** Its tables and columns right after migration. */
  readonly shape: string;
}

const idle: Migrated[] = [];
const owned = new Set<TestSchema>();

/** Tables and their columns, as one comparable text. */
async function shapeOf(client: pg.Client, schema: string): Promise<{ shape: string; tables: string[] }> {
  const { rows } = await client.query<{ table: string; columns: string }>(
    `select c.relname as table, string_agg(a.attname || ':' || format_type(a.atttypid, a.atttypmod), ',' order by a.attnum) as columns
     from pg_class c join pg_namespace n on n.oid = c.relnamespace join pg_attribute a on a.attrelid = c.oid
     where n.nspname = $1 and c.relkind = 'r' and a.attnum > 0 and not a.attisdropped
     group by c.relname order by c.relname`,
    [schema],
  );
  return { shape: rows.map((r) => `${r.table}(${r.columns})`).join(' '), tables: rows.map((r) => r.table) };
}

/** A migrated, empty schema for one service: a fresh one, or one an earlier test of this process released. */
export async function serviceSchema(): Promise<ServiceSchema> {
  let migrated = idle.pop();
  const handedOn = migrated === undefined && HAND_ON ? await takeHandedOnSchema() : undefined;
  if (handedOn !== undefined) {
    // Its shape is the migration's: the process that handed it on compared them when it emptied it.
    owned.add(handedOn);
    migrated = { schema: handedOn, shape: (await withClient(handedOn.url, (client) => shapeOf(client, handedOn.name))).shape };
  }
  if (migrated === undefined) {
    const schema = await freshSchema();
    owned.add(schema);
    const store = openStore(schema.url, { poolSize: 1 });
    try {
      await migrateToLatest(store.db);
    } finally {
      await store.db.destroy();
    }
    migrated = { schema, shape: (await withClient(schema.url, (client) => shapeOf(client, schema.name))).shape };
  }
  const { schema, shape } = migrated;
  return {
    url: schema.url,
    async release() {
      const emptied = await withClient(schema.url, async (client) => {
        const now = await shapeOf(client, schema.name);
        if (now.shape !== shape) return false;
        // Every foreign key cascades, so the order of the deletes does not matter. One round
        // trip: a simple query of several statements runs them in one transaction.
        const deletes = now.tables.filter((table) => !MIGRATION_TABLES.has(table)).map((table) => `delete from ${client.escapeIdentifier(table)};`);
        if (deletes.length > 0) await client.query(deletes.join(' '));
        return true;
      }).catch(() => false);
      if (emptied) {
        idle.push(migrated);
      } else {
        owned.delete(schema);
        await schema.drop();
      }
    },
  };
}

// The schemas this process made go with it, or its emptied ones to the run's later processes;
// beforeExit lets the drops and renames finish.
process.on('beforeExit', () => {
  if (owned.size === 0) return;
  const handOn = new Set(HAND_ON ? idle.map((m) => m.schema) : []);
  const schemas = [...owned];
  owned.clear();
  idle.length = 0;
  void Promise.allSettled(schemas.map((schema) => (handOn.has(schema) ? handOnSchema(schema) : schema.drop())));
});

/** Renames an emptied schema so that a later process of the run takes it (takeHandedOnSchema). */
async function handOnSchema(schema: TestSchema): Promise<void> {
  const idleName = `t_${Date.now().toString(36)}_${RUN}_idle${randomBytes(5).toString('hex')}`;
  await withClient(baseUrl(), async (client) => { await client.query(`alter schema ${schema.name} rename to ${idleName}`); });
}

/** Drops test schemas of the run `run`, and of any run older than `olderThanMs`; returns how many. */
export async function dropTestSchemas(options: { run?: string; now: number; olderThanMs: number }): Promise<number> {
  return withClient(baseUrl(), async (client) => {
    const { rows } = await client.query<{ nspname: string }>(`select nspname from pg_namespace where nspname like 't\\_%\\_%\\_%'`);
    let dropped = 0;
    for (const { nspname } of rows) {
      const [, time, run] = nspname.split('_');
      const created = parseInt(time ?? '', 36);
      const stale = Number.isFinite(created) && options.now - created >= options.olderThanMs;
      if (!stale && run !== options.run) continue;
      await client.query(`drop schema if exists ${client.escapeIdentifier(nspname)} cascade`);
      dropped += 1;
    }
    return dropped;
  });
}
