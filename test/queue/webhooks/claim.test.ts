// The webhook queue's lease statements (queue/webhooks/claim.ts), on the store the run
// chooses (SQLite, or PostgreSQL under test/run-postgres.ts).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { claimDueDeliveries, releaseAllDeliveryLeases } from '../../../src/queue/webhooks/claim.ts';
import { LEASE_DUE, SORT_OFF } from '../../../src/queue/webhooks/postgres-step.ts';
import { uuidv7 } from '../../../src/app/uuidv7-source.ts';
import type { Service } from '../../../src/service.ts';
import { openAccount, startService } from '../../support/service.ts';
import { statementPlan } from '../../support/statement-plan.ts';

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

test('on PostgreSQL, a claim from a backlog reads the due index in its order and stops at the limit, whatever the statistics say', async (t) => {
  const { service, accountId } = await setUp(t);
  if (!service.store.capabilities.skipLocked) return t.skip('SQLite claims in two statements (claim.ts)');
  const { db } = service.store;
  // A receiver back after an outage: 10,000 deliveries pending among 22,000, no statistics yet.
  await sql`insert into webhook_deliveries (id, account_id, message_id, type, payload, status, attempts, next_attempt_at, created_at, updated_at)
    select gen_random_uuid()::text, ${accountId}, gen_random_uuid()::text, 'sms.delivered', '{}', case when g <= 10000 then 'pending' else 'succeeded' end, 0, 0, ${T0}, ${T0}
    from generate_series(1, 22000) g`.execute(db);
  const parameters = [String(T0), '128', "'a'", String(T0 + LEASE_MS), "'on'"];
  interface PlanNode { 'Node Type': string; 'Index Name'?: string; Plans?: PlanNode[] }
  const walk = (node: PlanNode): string[] => [[node['Node Type'], node['Index Name']].filter(Boolean).join(' '), ...(node.Plans ?? []).flatMap(walk)];
  const nodes = (plan: string) => walk((JSON.parse(plan) as [{ Plan: PlanNode }])[0].Plan);

  // Planned as the claim plans it: the pick walks webhook_deliveries_due, nothing sorted.
  const planned = nodes(await statementPlan(db, LEASE_DUE, parameters, { before: [SORT_OFF], plan: 'custom' }));
  assert.ok(planned.includes('Index Scan webhook_deliveries_due'), planned.join(', '));
  assert.ok(!planned.includes('Sort'), planned.join(', '));
  // What sorting off prevents: every pending row read and sorted for each claim.
  assert.ok(nodes(await statementPlan(db, LEASE_DUE, parameters, { plan: 'custom' })).includes('Sort'));
  assert.equal((await claim(service, 'a', T0, 128)).length, 128);
});

test('on PostgreSQL, a claim leaves sorting as it was for the rest of its transaction, whether it leased rows or none', async (t) => {
  const { service, accountId } = await setUp(t);
  if (!service.store.capabilities.skipLocked) return t.skip('SQLite claims in two statements (claim.ts)');
  await delivery(service, accountId, 'm1', 'email.sent', T0);
  const sortingAfterClaim = (now: number) => service.store.db.transaction().execute(async (tx) => {
    const claimed = await claimDueDeliveries(tx, service.store.capabilities, { owner: 'a', now, leaseMs: LEASE_MS, limit: 10 });
    const { rows } = await sql<{ sorting: string }>`select current_setting('enable_sort') as sorting`.execute(tx);
    return [claimed.length, rows[0]?.sorting];
  });

  assert.deepStrictEqual(await sortingAfterClaim(T0), [1, 'on']);
  assert.deepStrictEqual(await sortingAfterClaim(T0), [0, 'on']);
});
