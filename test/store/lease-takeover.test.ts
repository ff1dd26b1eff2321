// Fast takeover (store/lease-takeover.ts): the leases of a process whose heartbeat has
// stopped are made due at once, those of a live process are left alone, each silent
// process is taken over once, and a beat that comes back clears the mark.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { claimDue } from '../../src/queue/outbox/claim.ts';
import { insertImport, markReceived } from '../../src/store/contact-imports.ts';
import { claimImport } from '../../src/queue/imports/claim.ts';
import { takeOverLeasesOfSilentProcesses } from '../../src/store/lease-takeover.ts';
import { touchProcess } from '../../src/store/processes.ts';
import { uuidv7 } from '../../src/app/uuidv7-source.ts';
import { openAccount, post, smsBody, startService } from '../support/service.ts';

const LEASE_MS = 300_000;
const SILENT_AFTER_MS = 10_000;
const IMPORT_LEASE_MS = 60_000;

test('the leases of a silent process are made due now and claimed by another; a live process keeps its own; each silent process is taken once until it beats again', async (t) => {
  const service = await startService(t);
  const { db, capabilities } = service.store;
  const account = await openAccount(service);
  const sent = await post(service, '/v1/sms/send', account.apiKey, smsBody({ mobile_numbers: ['+5215512345678', '+5215512345679'] }));
  assert.equal(sent.statusCode, 200);
  const now = Date.now();
  await db.insertInto('processes').values([
    { id: 'silent', role: 'worker', pid: 1, host: 'h', started_at: now - 60_000, last_seen_at: now - 30_000 },
    { id: 'alive', role: 'worker', pid: 2, host: 'h', started_at: now - 60_000, last_seen_at: now - 1_000 },
  ]).execute();
  const [silentHeld] = await claimDue(db, capabilities, { owner: 'silent', now, leaseMs: LEASE_MS, limit: 1, channel: 'sms' }, uuidv7);
  const [aliveHeld] = await claimDue(db, capabilities, { owner: 'alive', now, leaseMs: LEASE_MS, limit: 1, channel: 'sms' }, uuidv7);
  assert.ok(silentHeld !== undefined && aliveHeld !== undefined);

  const taken = await takeOverLeasesOfSilentProcesses(db, now - SILENT_AFTER_MS, now);
  assert.deepStrictEqual(taken, { processes: [{ id: 'silent', pid: 1, host: 'h', lastSeenAt: now - 30_000 }], outbox: 1, webhooks: 0, simulatedReports: 0, campaigns: 0, imports: 0, inboundMedia: 0 });
  const rows = await db.selectFrom('outbox').select(['message_id', 'lease_owner', 'lease_expires_at', 'available_at']).orderBy('message_id').execute();
  assert.deepStrictEqual(rows.map((row) => ({ ...row })).sort((a, b) => (a.lease_owner ?? '').localeCompare(b.lease_owner ?? '')), [
    { message_id: aliveHeld.msgid, lease_owner: 'alive', lease_expires_at: now + LEASE_MS, available_at: now + LEASE_MS },
    { message_id: silentHeld.msgid, lease_owner: 'silent', lease_expires_at: now, available_at: now },
  ]);

  const [retaken, ...more] = await claimDue(db, capabilities, { owner: 'successor', now, leaseMs: LEASE_MS, limit: 10, channel: 'sms' }, uuidv7);
  assert.deepStrictEqual([retaken?.msgid, retaken?.attempt, more.length], [silentHeld.msgid, 2, 0]);

  assert.deepStrictEqual((await takeOverLeasesOfSilentProcesses(db, now - SILENT_AFTER_MS, now)).processes, []);
  await touchProcess(db, 'silent', now);
  const row = await db.selectFrom('processes').select(['last_seen_at', 'leases_released_at']).where('id', '=', 'silent').executeTakeFirstOrThrow();
  assert.deepStrictEqual({ ...row }, { last_seen_at: now, leases_released_at: null });
});

test('a running import held by a silent process is made due now and claimed by another; one held by a live process, or still receiving, is left', async (t) => {
  const service = await startService(t, { imports: false });
  const { db, capabilities } = service.store;
  const account = await openAccount(service);
  const now = Date.now();
  await db.insertInto('processes').values([
    { id: 'silent', role: 'worker', pid: 1, host: 'h', started_at: now - 60_000, last_seen_at: now - 30_000 },
    { id: 'alive', role: 'worker', pid: 2, host: 'h', started_at: now - 60_000, last_seen_at: now - 1_000 },
  ]).execute();
  const [silentRun, aliveRun, upload] = [uuidv7(), uuidv7(), uuidv7()];
  for (const id of [silentRun, aliveRun, upload]) {
    await insertImport(db, { id, accountId: account.id, listId: null, format: 'csv', owner: 'silent', leaseUntil: now + IMPORT_LEASE_MS, now });
  }
  await markReceived(db, silentRun, now);
  await markReceived(db, aliveRun, now);
  assert.equal((await claimImport(db, capabilities, 'silent', now, IMPORT_LEASE_MS))?.id, silentRun);
  assert.equal((await claimImport(db, capabilities, 'alive', now, IMPORT_LEASE_MS))?.id, aliveRun);
  assert.equal(await claimImport(db, capabilities, 'successor', now, IMPORT_LEASE_MS), undefined);

  const taken = await takeOverLeasesOfSilentProcesses(db, now - SILENT_AFTER_MS, now);
  assert.deepStrictEqual({ ...taken, processes: taken.processes.map((p) => p.id) }, { processes: ['silent'], outbox: 0, webhooks: 0, simulatedReports: 0, campaigns: 0, imports: 1, inboundMedia: 0 });
  const rows = await db.selectFrom('contact_imports').select(['id', 'status', 'lease_owner', 'lease_expires_at']).orderBy('id').execute();
  assert.deepStrictEqual(rows.map((row) => ({ ...row })), [
    { id: silentRun, status: 'running', lease_owner: 'silent', lease_expires_at: now },
    { id: aliveRun, status: 'running', lease_owner: 'alive', lease_expires_at: now + IMPORT_LEASE_MS },
    { id: upload, status: 'receiving', lease_owner: 'silent', lease_expires_at: now + IMPORT_LEASE_MS },
  ]);
  const retaken = await claimImport(db, capabilities, 'successor', now, IMPORT_LEASE_MS);
  assert.deepStrictEqual([retaken?.id, retaken?.attempts], [silentRun, 2]);
});
