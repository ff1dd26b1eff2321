// isStoreUnavailable against the errors the drivers really throw: an outage is told
// apart from a statement the store refused.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import pg from 'pg';
import { isStoreUnavailable } from '../../src/store/store-unavailable.ts';
import { closedPort } from '../support/closed-port.ts';
import { TEST_POSTGRES_URL } from '../support/postgres.ts';

async function thrown(work: () => Promise<unknown> | unknown): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  return assert.fail('nothing was thrown');
}

test('a refused PostgreSQL connection is an outage', async () => {
  const pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${await closedPort()}/x`, connectionTimeoutMillis: 2000 });
  pool.on('error', () => {});
  const error = await thrown(() => pool.query('select 1'));
  await pool.end();
  assert.equal(isStoreUnavailable(error), true, String(error));
});

test('SQLITE_BUSY past the busy time-out is an outage; a statement SQLite refuses is not', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'herald-busy-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const first = new DatabaseSync(join(dir, 'db'));
  const second = new DatabaseSync(join(dir, 'db'), { timeout: 10 });
  t.after(() => { first.close(); second.close(); });
  first.exec('create table t (x integer primary key); begin immediate');
  assert.equal(isStoreUnavailable(await thrown(() => second.exec('begin immediate'))), true);
  first.exec('rollback; insert into t values (1)');
  assert.equal(isStoreUnavailable(await thrown(() => second.exec('insert into t values (1)'))), false);
  assert.equal(isStoreUnavailable(await thrown(() => second.exec('selct 1'))), false);
});

test('PostgreSQL: a pool time-out and a terminated connection are outages; a unique violation is not', { skip: TEST_POSTGRES_URL === undefined && 'TEST_POSTGRES_URL is not set' }, async () => {
  const pool = new pg.Pool({ connectionString: TEST_POSTGRES_URL, max: 1, connectionTimeoutMillis: 200 });
  pool.on('error', () => {});
  const held = await pool.connect();
  try {
    assert.equal(isStoreUnavailable(await thrown(() => pool.query('select 1'))), true);
    const other = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await other.connect();
    other.on('error', () => {});
    const pid = (await other.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid;
    const terminated = thrown(() => other.query('select pg_sleep(5)'));
    await held.query('select pg_terminate_backend($1)', [pid]);
    assert.equal(isStoreUnavailable(await terminated), true);
    await other.end().catch(() => {});
    await held.query('create temporary table u (x int primary key); insert into u values (1)');
    assert.equal(isStoreUnavailable(await thrown(() => held.query('insert into u values (1)'))), false);
  } finally {
    held.release(true);
    await pool.end();
  }
});
