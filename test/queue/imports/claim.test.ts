// The import queue's lease statements (queue/imports/claim.ts), on the store the run
// chooses (SQLite, or PostgreSQL under test/run-postgres.ts).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { claimImport, releaseAllImports, releaseImport } from '../../../src/queue/imports/claim.ts';
import { insertImport, markReceived } from '../../../src/store/contact-imports.ts';
import { uuidv7 } from '../../../src/app/uuidv7-source.ts';
import type { Service } from '../../../src/service.ts';
import { openAccount, startService } from '../../support/service.ts';

const T0 = 1_700_000_000_000;
const LEASE_MS = 60_000;

/** An import received (`running`, no lease) or still `receiving` under its uploader's lease. */
async function anImport(service: Service, accountId: string, received: boolean): Promise<string> {
  const id = uuidv7();
  await insertImport(service.deps.db, { id, accountId, listId: null, format: 'csv', owner: 'uploader', leaseUntil: T0 + LEASE_MS, now: T0 });
  if (received) await markReceived(service.deps.db, id, T0);
  return id;
}

async function row(service: Service, id: string): Promise<{ owner: string | null; expires: number | null; attempts: number }> {
  const found = await service.deps.db.selectFrom('contact_imports').select(['lease_owner', 'lease_expires_at', 'attempts']).where('id', '=', id).executeTakeFirstOrThrow();
  return { owner: found.lease_owner, expires: found.lease_expires_at === null ? null : Number(found.lease_expires_at), attempts: Number(found.attempts) };
}

async function setUp(t: TestContext): Promise<{ service: Service; accountId: string }> {
  const service = await startService(t, { imports: false });
  return { service, accountId: (await openAccount(service)).id };
}

test('a claim takes the oldest running import nobody holds, counts an attempt and leases it; an upload still receiving is never claimed', async (t) => {
  const { service, accountId } = await setUp(t);
  await anImport(service, accountId, false);
  const first = await anImport(service, accountId, true);
  const second = await anImport(service, accountId, true);
  const { db } = service.deps;
  const { capabilities } = service.store;

  const claimed = await claimImport(db, capabilities, 'runner-a', T0, LEASE_MS);
  assert.deepStrictEqual([claimed?.id, claimed?.attempts], [first, 1]);
  assert.deepStrictEqual(await row(service, first), { owner: 'runner-a', expires: T0 + LEASE_MS, attempts: 1 });
  assert.equal((await claimImport(db, capabilities, 'runner-b', T0, LEASE_MS))?.id, second);
  assert.equal(await claimImport(db, capabilities, 'runner-c', T0, LEASE_MS), undefined);
});

test('an import whose lease ran out is claimed again with its attempts counted on', async (t) => {
  const { service, accountId } = await setUp(t);
  const id = await anImport(service, accountId, true);
  const { db } = service.deps;
  const { capabilities } = service.store;
  await claimImport(db, capabilities, 'dead', T0, LEASE_MS);

  assert.equal(await claimImport(db, capabilities, 'next', T0 + LEASE_MS - 1, LEASE_MS), undefined);
  const again = await claimImport(db, capabilities, 'next', T0 + LEASE_MS, LEASE_MS);
  assert.deepStrictEqual([again?.id, again?.attempts], [id, 2]);
});

test('a release by a stopping runner gives its attempt back, one after a failure keeps it counted, another owner\'s release does nothing', async (t) => {
  const { service, accountId } = await setUp(t);
  const stopped = await anImport(service, accountId, true);
  const failed = await anImport(service, accountId, true);
  const { db } = service.deps;
  const { capabilities } = service.store;
  await claimImport(db, capabilities, 'runner', T0, LEASE_MS);
  await claimImport(db, capabilities, 'runner', T0, LEASE_MS);

  await releaseImport(db, stopped, 'someone-else');
  assert.deepStrictEqual(await row(service, stopped), { owner: 'runner', expires: T0 + LEASE_MS, attempts: 1 });
  await releaseImport(db, stopped, 'runner');
  await releaseImport(db, failed, 'runner', 'counted');
  assert.deepStrictEqual(await row(service, stopped), { owner: null, expires: null, attempts: 0 });
  assert.deepStrictEqual(await row(service, failed), { owner: null, expires: null, attempts: 1 });
});

test('releaseAllImports lets go of every running import\'s lease, says how many, and leaves uploads still receiving', async (t) => {
  const { service, accountId } = await setUp(t);
  const receiving = await anImport(service, accountId, false);
  const running = [await anImport(service, accountId, true), await anImport(service, accountId, true)];
  const { db } = service.deps;
  await claimImport(db, service.store.capabilities, 'a', T0, LEASE_MS);
  await claimImport(db, service.store.capabilities, 'b', T0, LEASE_MS);

  assert.equal(await releaseAllImports(db), 2);
  for (const id of running) assert.deepStrictEqual(await row(service, id), { owner: null, expires: null, attempts: 1 });
  assert.deepStrictEqual(await row(service, receiving), { owner: 'uploader', expires: T0 + LEASE_MS, attempts: 0 });
});
