// The campaign queue's lease statements (queue/campaigns/claim.ts), on the store the
// run chooses (SQLite, or PostgreSQL under test/run-postgres.ts).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { claimDueCampaign, releaseAllCampaigns, releaseCampaign, releaseLease } from '../../../src/queue/campaigns/claim.ts';
import { insertCampaign } from '../../../src/store/campaigns.ts';
import { uuidv7 } from '../../../src/app/uuidv7-source.ts';
import type { Service } from '../../../src/service.ts';
import { openAccount, startService } from '../../support/service.ts';

const T0 = 1_700_000_000_000;
const LEASE_MS = 60_000;

/** A campaign of `status`, due at `dueAt` (null: not due), with no lease. */
async function campaign(service: Service, accountId: string, status: string, dueAt: number | null): Promise<string> {
  const id = uuidv7();
  await insertCampaign(service.deps.db, {
    id, accountId, now: T0, name: id, subject: 's', from: { email: 'news@example.com', name: 'News' }, replyTo: { email: 'news@example.com', name: 'News' },
    body: 'hi', templateId: null, variables: {}, lists: [], excludeLists: [], filter: null, sendAt: null, messagesPerMinute: null, messagesPerMinutePerDomain: null,
  });
  await service.deps.db.updateTable('campaigns').set({ status, due_at: dueAt }).where('id', '=', id).execute();
  return id;
}

async function lease(service: Service, id: string): Promise<{ owner: string | null; expires: number | null; dueAt: number | null }> {
  const row = await service.deps.db.selectFrom('campaigns').select(['lease_owner', 'lease_expires_at', 'due_at']).where('id', '=', id).executeTakeFirstOrThrow();
  return { owner: row.lease_owner, expires: row.lease_expires_at === null ? null : Number(row.lease_expires_at), dueAt: row.due_at === null ? null : Number(row.due_at) };
}

async function setUp(t: TestContext): Promise<{ service: Service; accountId: string }> {
  const service = await startService(t, { worker: false });
  await service.campaigns?.stop();
  return { service, accountId: (await openAccount(service)).id };
}

test('a claim leases the campaign due first, and only scheduled or running ones that are due', async (t) => {
  const { service, accountId } = await setUp(t);
  await campaign(service, accountId, 'paused', T0 - 3000);
  await campaign(service, accountId, 'running', T0 + 1000);
  const later = await campaign(service, accountId, 'running', T0 - 1000);
  const first = await campaign(service, accountId, 'scheduled', T0 - 2000);
  const { db } = service.deps;
  const { capabilities } = service.store;

  assert.equal((await claimDueCampaign(db, capabilities, 'runner-a', T0, LEASE_MS))?.id, first);
  assert.deepStrictEqual(await lease(service, first), { owner: 'runner-a', expires: T0 + LEASE_MS, dueAt: T0 - 2000 });
  assert.equal((await claimDueCampaign(db, capabilities, 'runner-b', T0, LEASE_MS))?.id, later);
  assert.equal(await claimDueCampaign(db, capabilities, 'runner-c', T0, LEASE_MS), undefined);
});

test('a campaign whose lease ran out is claimed by the next runner', async (t) => {
  const { service, accountId } = await setUp(t);
  const id = await campaign(service, accountId, 'running', T0);
  const { db } = service.deps;
  const { capabilities } = service.store;
  await claimDueCampaign(db, capabilities, 'dead', T0, LEASE_MS);

  assert.equal(await claimDueCampaign(db, capabilities, 'next', T0 + LEASE_MS - 1, LEASE_MS), undefined);
  assert.equal((await claimDueCampaign(db, capabilities, 'next', T0 + LEASE_MS, LEASE_MS))?.id, id);
  assert.deepStrictEqual(await lease(service, id), { owner: 'next', expires: T0 + 2 * LEASE_MS, dueAt: T0 });
});

test('releaseCampaign lets go with the next due time, releaseLease keeps it, and neither touches another owner\'s lease', async (t) => {
  const { service, accountId } = await setUp(t);
  const paced = await campaign(service, accountId, 'running', T0);
  const paused = await campaign(service, accountId, 'running', T0 + 1);
  const { db } = service.deps;
  const { capabilities } = service.store;
  await claimDueCampaign(db, capabilities, 'runner', T0 + 1, LEASE_MS);
  await claimDueCampaign(db, capabilities, 'runner', T0 + 1, LEASE_MS);

  await releaseCampaign(db, paced, 'someone-else', null);
  await releaseLease(db, paused, 'someone-else');
  assert.deepStrictEqual(await lease(service, paced), { owner: 'runner', expires: T0 + 1 + LEASE_MS, dueAt: T0 });
  await releaseCampaign(db, paced, 'runner', T0 + 5000);
  await releaseLease(db, paused, 'runner');
  assert.deepStrictEqual(await lease(service, paced), { owner: null, expires: null, dueAt: T0 + 5000 });
  assert.deepStrictEqual(await lease(service, paused), { owner: null, expires: null, dueAt: T0 + 1 });
});

test('releaseAllCampaigns lets go of every lease and says how many', async (t) => {
  const { service, accountId } = await setUp(t);
  const ids = [await campaign(service, accountId, 'running', T0), await campaign(service, accountId, 'running', T0), await campaign(service, accountId, 'running', T0)];
  const { db } = service.deps;
  await claimDueCampaign(db, service.store.capabilities, 'a', T0, LEASE_MS);
  await claimDueCampaign(db, service.store.capabilities, 'b', T0, LEASE_MS);

  assert.equal(await releaseAllCampaigns(db), 2);
  for (const id of ids) assert.deepStrictEqual(await lease(service, id), { owner: null, expires: null, dueAt: T0 });
});
