// The outbox queue's lease statements (queue/outbox/claim.ts), on the store the run
// chooses (SQLite, or PostgreSQL under test/run-postgres.ts).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { uuidv7 } from '../../../src/app/uuidv7-source.ts';
import { claimDue, releaseAllLeases } from '../../../src/queue/outbox/claim.ts';
import type { Service } from '../../../src/service.ts';
import { emailBody, openAccount, post, smsBody, startService } from '../../support/service.ts';

const LEASE_MS = 300_000;

/** A service whose loops do not run, with two SMS and one email queued; returns the SMS ids in the order sent. */
async function queued(t: TestContext): Promise<{ service: Service; sms: string[] }> {
  const service = await startService(t, { worker: false });
  const account = await openAccount(service);
  const sent = await post(service, '/v1/sms/send', account.apiKey, smsBody({ mobile_numbers: ['+5215512345678', '+5215512345679'] }));
  assert.equal(sent.statusCode, 200);
  assert.equal((await post(service, '/v1/email', account.apiKey, emailBody())).statusCode, 200);
  return { service, sms: (sent.json().messages as { msgid: string }[]).map((message) => message.msgid) };
}

function claim(service: Service, owner: string, now: number, limit: number): Promise<{ msgid: string; attempt: number; channel: string }[]> {
  return claimDue(service.store.db, service.store.capabilities, { owner, now, leaseMs: LEASE_MS, limit, channel: 'sms' }, uuidv7)
    .then((claimed) => claimed.map(({ msgid, attempt, channel }) => ({ msgid, attempt, channel })));
}

test('a claim leases due rows of its channel only, up to the limit, as attempt 1; leased rows are not claimed again', async (t) => {
  const { service, sms } = await queued(t);
  const now = Date.now();

  const first = await claim(service, 'a', now, 1);
  const second = await claim(service, 'b', now, 10);
  assert.deepStrictEqual([...first, ...second].map((row) => row.msgid).sort(), [...sms].sort());
  assert.deepStrictEqual([...first, ...second].map((row) => [row.channel, row.attempt]), [['sms', 1], ['sms', 1]]);
  assert.deepStrictEqual(await claim(service, 'c', now, 10), []);
});

test('a row whose lease ran out is claimed by another owner as its next attempt', async (t) => {
  const { service } = await queued(t);
  const now = Date.now();
  const held = await claim(service, 'dead', now, 10);

  assert.deepStrictEqual(await claim(service, 'next', now + LEASE_MS - 1, 10), []);
  const again = await claim(service, 'next', now + LEASE_MS, 10);
  assert.deepStrictEqual(again.map((row) => row.attempt), [2, 2]);
  assert.deepStrictEqual(again.map((row) => row.msgid).sort(), held.map((row) => row.msgid).sort());
});

test('releaseAllLeases makes every leased row due now and says how many there were', async (t) => {
  const { service } = await queued(t);
  const now = Date.now();
  await claim(service, 'a', now, 10);

  assert.equal(await releaseAllLeases(service.store.db, now + 1), 2);
  const rows = await service.store.db.selectFrom('outbox').select(['lease_owner', 'lease_expires_at', 'available_at']).where('channel', '=', 'sms').execute();
  assert.deepStrictEqual(rows.map((row) => ({ ...row, available_at: Number(row.available_at) })), [
    { lease_owner: null, lease_expires_at: null, available_at: now + 1 },
    { lease_owner: null, lease_expires_at: null, available_at: now + 1 },
  ]);
  assert.deepStrictEqual((await claim(service, 'b', now + 1, 10)).map((row) => row.attempt), [2, 2]);
});
