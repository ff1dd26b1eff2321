// PostgreSQL's receipts written together (store/postgres/peer-receipt.ts): the look-up
// with webhook subjects, and the one statement that records them all on condition that
// the accounts' webhook settings are still those read. Runs through
// `node test/run-postgres.ts`; on SQLite (no batched receipts) each test is skipped.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { uuidv7 } from '../../../src/app/uuidv7-source.ts';
import type { Service } from '../../../src/service.ts';
import { batchOperationsOf } from '../../../src/store/engine.ts';
import { FIND_WITH_SUBJECTS, findReceiptMessages, receiptsTogether, recordReceipts } from '../../../src/store/postgres/peer-receipt.ts';
import { insertWebhookEndpoint } from '../../../src/store/webhook-endpoints.ts';
import { setWebhookTarget } from '../../../src/store/webhook-settings.ts';
import { statementPlan } from '../../support/statement-plan.ts';
import { openAccount, post, smsBody, startService } from '../../support/service.ts';

/** A service on PostgreSQL, or undefined (the test skipped) on SQLite. */
async function onPostgres(t: TestContext): Promise<Service | undefined> {
  const service = await startService(t);
  if (batchOperationsOf(service.store.db).receipts !== undefined) return service;
  t.skip('SQLite records each report alone, in a unit of work');
  return undefined;
}

/** A sent SMS the peer knows as `providerRef`. */
async function sentSms(service: Service, providerRef: string): Promise<{ accountId: string; msgid: string }> {
  const account = await openAccount(service);
  const msgid: string = (await post(service, '/v1/sms/send', account.apiKey, smsBody())).json().messages[0].msgid;
  await service.store.db.updateTable('messages').set({ status: 'sent', provider_ref: providerRef }).where('id', '=', msgid).execute();
  return { accountId: account.id, msgid };
}

const receipt = (providerRef: string, status: 'delivered' | 'bounced', at: number) =>
  ({ channel: 'sms' as const, providerRef, event: { status, eventId: uuidv7(), at, data: {} } });

test('a batch of reports whose account changed its webhook URL after the look-up writes nothing, for the ordinary way to record it', async (t) => {
  const service = await onPostgres(t);
  if (service === undefined) return;
  const { db } = service.store;
  const { accountId, msgid } = await sentSms(service, 'smsc-7');
  const now = service.deps.clock();
  const count = async (table: 'webhook_deliveries' | 'message_events') =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('message_id', '=', msgid).executeTakeFirstOrThrow()).n);
  const recordAfter = async (url: string | null) => {
    const found = (await findReceiptMessages(db, 'sms', ['smsc-7'])).get('smsc-7');
    assert.ok(found);
    await setWebhookTarget(db, accountId, { url }, now);
    return recordReceipts(db, [{ message: found, event: { status: 'delivered', eventId: uuidv7(), at: now, data: {} } }]);
  };
  const events = await count('message_events');

  await setWebhookTarget(db, accountId, { url: 'https://hooks.example.com/a' }, now);
  // undefined: nothing written; otherwise the public events recorded (for the outcome counters).
  assert.equal(await recordAfter(null), undefined);
  assert.equal(await recordAfter('https://hooks.example.com/b'), undefined);
  assert.deepStrictEqual([await count('message_events'), await count('webhook_deliveries')], [events, 0]);
  const acceptedAt = Number((await db.selectFrom('messages').select('created_at').where('id', '=', msgid).executeTakeFirstOrThrow()).created_at);
  assert.deepStrictEqual(await recordAfter('https://hooks.example.com/b'), [{ channel: 'sms', type: 'sms.delivered', at: now, acceptedAt }]);
  assert.deepStrictEqual([await count('message_events'), await count('webhook_deliveries')], [events + 1, 1]);
});

test('written together, a second report on a message waits for the next batch and an unknown reference is answered false', async (t) => {
  const service = await onPostgres(t);
  if (service === undefined) return;
  const { db } = service.store;
  const { msgid } = await sentSms(service, 'smsc-8');
  const now = service.deps.clock();

  const written = await receiptsTogether.together(db, [receipt('smsc-8', 'delivered', now), receipt('smsc-8', 'bounced', now + 1), receipt('smsc-404', 'delivered', now)]);

  assert.deepStrictEqual(written.outcomes, [{ kind: 'done', value: true }, { kind: 'later' }, { kind: 'done', value: false }]);
  const events = await db.selectFrom('message_events').select('type').where('message_id', '=', msgid).execute();
  assert.deepStrictEqual(events.map((e) => e.type), ['delivered']);
  assert.equal((await db.selectFrom('messages').select('status').where('id', '=', msgid).executeTakeFirstOrThrow()).status, 'delivered');
});

test('a report on a message of an account with several webhook endpoints goes alone, and its event reaches each endpoint', async (t) => {
  const service = await onPostgres(t);
  if (service === undefined) return;
  const { db } = service.store;
  const { accountId, msgid } = await sentSms(service, 'smsc-9');
  const now = service.deps.clock();
  await setWebhookTarget(db, accountId, { url: 'https://hooks.example.com/first' }, now);
  await insertWebhookEndpoint(db, { id: uuidv7(), accountId, url: 'https://hooks.example.com/other', description: null, events: null, secret: 'whsec_b3RoZXI=', now });

  const written = await receiptsTogether.together(db, [receipt('smsc-9', 'delivered', now)]);
  assert.deepStrictEqual(written.outcomes, [{ kind: 'alone' }]);
  assert.equal(await db.transaction().execute((tx) => receiptsTogether.alone(tx, receipt('smsc-9', 'delivered', now))), true);
  const deliveries = await db.selectFrom('webhook_deliveries').select(['type', 'endpoint_id']).where('message_id', '=', msgid).where('type', '=', 'sms.delivered').execute();
  assert.deepStrictEqual(deliveries.map((d) => d.endpoint_id === null).sort(), [false, true]);
});

test('the look-up finds each reference through the index, with the plan made before the messages table has statistics', async (t) => {
  const service = await onPostgres(t);
  if (service === undefined) return;
  const { db } = service.store;
  const { msgid } = await sentSms(service, 'smsc-10');
  const { msgid: other } = await sentSms(service, 'smsc-11');

  const found = await findReceiptMessages(db, 'sms', ['smsc-10', 'smsc-404', 'smsc-11', 'smsc-10']);
  assert.deepStrictEqual([...found].map(([ref, message]) => [ref, message.id]).sort(), [['smsc-10', msgid], ['smsc-11', other]]);
  assert.equal((await findReceiptMessages(db, 'whatsapp', ['smsc-10'])).size, 0);
  // Read by channel and reference together: a plan that reads the channel's messages and
  // filters them cost a full read of them per batch (30 ms at 12,000 messages).
  const plan = await statementPlan(db, FIND_WITH_SUBJECTS, ["'sms'", "'{smsc-10,smsc-11}'"]);
  assert.match(plan, /"Index Cond":"\(\(channel = \$1\) AND \(provider_ref = ref\.provider_ref\)\)"/);
});
