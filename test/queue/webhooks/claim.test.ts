// The webhook queue's lease statements (queue/webhooks/claim.ts), on the store the run
// chooses (SQLite, or PostgreSQL under test/run-postgres.ts).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { claimDueDeliveries, releaseAllDeliveryLeases } from '../../../src/queue/webhooks/claim.ts';
import { uuidv7 } from '../../../src/app/uuidv7-source.ts';
import type { Service } from '../../../src/service.ts';
import { openAccount, startService } from '../../support/service.ts';

const T0 = 1_700_000_000_000;
const LEASE_MS = 300_000;

async function setUp(t: TestContext): Promise<{ service: Service; accountId: string }> {
  const service = await startService(t, { worker: false });
  return { service, accountId: (await openAccount(service)).id };
}

/** A pending delivery of `messageId`'s event `type`, due at `dueAt`; returns its id. */
async function delivery(service: Service, accountId: string, messageId: string | null, type: string, dueAt: number): Promise<string> {
  const id = uuidv7();
  await service.store.db.insertInto('webhook_deliveries').values({
    id, account_id: accountId, message_id: messageId, type, payload: '{}', status: 'pending', attempts: 0, next_attempt_at: dueAt,
    lease_owner: null, lease_expires_at: null, last_status_code: null, last_error: null, created_at: T0, updated_at: T0,
  }).execute();
  return id;
}

async function claim(service: Service, owner: string, now: number, limit = 10): Promise<string[]> {
  const claimed = await service.store.db.transaction().execute((tx) => claimDueDeliveries(tx, service.store.capabilities, { owner, now, leaseMs: LEASE_MS, limit }));
  return claimed.map((d) => d.type);
}

test('a claim leases due deliveries in id order, only the first pending one of each message (head of line), up to the limit', async (t) => {
  const { service, accountId } = await setUp(t);
  await delivery(service, accountId, 'm1', 'email.sent', T0);
  await delivery(service, accountId, 'm1', 'email.delivered', T0);
  await delivery(service, accountId, 'm2', 'sms.sent', T0);
  await delivery(service, accountId, null, 'test.one', T0);
  await delivery(service, accountId, null, 'test.later', T0 + 1);

  assert.deepStrictEqual(await claim(service, 'a', T0, 2), ['email.sent', 'sms.sent']);
  assert.deepStrictEqual(await claim(service, 'b', T0), ['test.one']);
  assert.deepStrictEqual(await claim(service, 'c', T0 + 1), ['test.later']);
});

test('a delivery whose lease ran out is claimed again by another owner', async (t) => {
  const { service, accountId } = await setUp(t);
  await delivery(service, accountId, 'm1', 'email.sent', T0);
  await claim(service, 'dead', T0);

  assert.deepStrictEqual(await claim(service, 'next', T0 + LEASE_MS - 1), []);
  assert.deepStrictEqual(await claim(service, 'next', T0 + LEASE_MS), ['email.sent']);
});

test('releaseAllDeliveryLeases lets go of every lease and says how many', async (t) => {
  const { service, accountId } = await setUp(t);
  await delivery(service, accountId, 'm1', 'email.sent', T0);
  await delivery(service, accountId, 'm2', 'sms.sent', T0);
  await claim(service, 'a', T0);

  assert.equal(await releaseAllDeliveryLeases(service.store.db), 2);
  assert.deepStrictEqual(await claim(service, 'b', T0), ['email.sent', 'sms.sent']);
});
